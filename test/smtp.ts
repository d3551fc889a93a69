import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CapturedMail {
  to: string[];
  raw: string;
  /** The text with quoted-printable soft breaks and escapes undone. */
  text: string;
}

const decodeQuotedPrintable = (s: string) => s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** A local SMTP server that keeps every mail it receives, for tests to read links from. */
export async function startSmtpCapture(): Promise<{ url: string; mails: CapturedMail[]; waitFor(to: string, match?: RegExp): Promise<CapturedMail>; close(): Promise<void> }> {
  const mails: CapturedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw, text: decodeQuotedPrintable(raw) });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const find = (to: string, match?: RegExp) => mails.find((m) => m.to.includes(to.toLowerCase()) && (!match || match.test(m.text)));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, match) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = find(to, match);
        if (found) {
          mails.splice(mails.indexOf(found), 1);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within 5 s`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token from a link in a mail (`...?token=...`). */
export function tokenFrom(mail: CapturedMail): string {
  const m = /[?&]token=([A-Za-z0-9_%-]+)/.exec(mail.text);
  if (!m) throw new Error(`no token link in mail: ${mail.text.slice(0, 500)}`);
  return decodeURIComponent(m[1]);
}
