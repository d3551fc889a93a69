import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type nodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BaseDeps } from '../core/context.js';
import { OutboxMail } from './mail.entity.js';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface OutgoingMail {
  /** One address, or several separated by commas. */
  to: string;
  cc?: string[];
  subject: string;
  text: string;
  attachments?: MailAttachment[];
}

/**
 * What domains use to send mail. Call `send` after the transaction that produced the mail
 * has committed: a rolled-back change must not send anything. It never throws; failures
 * are logged with the recipient only (mail bodies carry single-use tokens).
 */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  /**
   * Hands the mail to the SMTP server and resolves once it accepted it; rejects with the reason
   * otherwise (durable jobs record the outcome). Without SMTP the mail is kept in the outbox,
   * attachments left out, and the promise rejects: nothing reached the recipient.
   */
  deliver(mail: OutgoingMail): Promise<void>;
  /** Waits for mail still being handed to the SMTP server. */
  close(): Promise<void>;
}

type Log = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>) => void;

/** Mail log lines name the subject, never the recipient or the body (which carries single-use tokens). */
const logger = (deps: BaseDeps): Log => (level, msg, fields) => deps.log[level](fields, msg);

/**
 * Outside production with no SMTP, each mail is also written as a readable file in the data dir
 * (`mail/`), link included, so a newcomer can finish verification and resets locally; the log
 * stream stays JSON and gets one line naming the file, never the body (it carries a token).
 */
function writeMailFile(deps: BaseDeps, mail: OutgoingMail, log: Log): void {
  if (deps.config.production) return;
  const dir = join(deps.config.dataDir, 'mail');
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.txt`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`, { mode: 0o600 });
    log('info', 'development mail written to a file', { subject: mail.subject, file });
  } catch (err) {
    log('error', 'development mail not written', { subject: mail.subject, error: (err as Error).message });
  }
}

/** Over SMTP in the background, so a slow mail server never holds up an API response. */
function smtpMailer(deps: BaseDeps, url: string, log: Log): Mailer {
  // Required only when SMTP is configured: without it, nodemailer would only slow the start.
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof nodemailerModule;
  const transport: Transporter = nodemailer.createTransport(url);
  const inFlight = new Set<Promise<void>>();
  const handOver = (mail: OutgoingMail) =>
    transport.sendMail({
      from: deps.config.mailFrom,
      to: mail.to,
      ...(mail.cc?.length ? { cc: mail.cc } : {}),
      subject: mail.subject,
      text: mail.text,
      ...(mail.attachments?.length ? { attachments: mail.attachments } : {}),
    });
  return {
    async send(mail) {
      const p = handOver(mail)
        .then(
          () => undefined,
          (err: Error) => log('error', 'email not sent: SMTP failed', { subject: mail.subject, error: err.message }),
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    async deliver(mail) {
      const p = handOver(mail).then(() => undefined);
      const tracked = p.catch(() => undefined).finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      await p;
    },
    async close() {
      await Promise.all([...inFlight]);
      transport.close();
    },
  };
}

/** Without SMTP the mail is kept in mail_outbox (and written to a file outside production). */
function outboxMailer(deps: BaseDeps, log: Log): Mailer {
  const keep = async (mail: OutgoingMail) => {
    try {
      const em = deps.orm.em.fork() as EntityManager;
      em.create(OutboxMail, { toAddress: mail.to, subject: mail.subject, body: mail.text });
      await em.flush();
      log('warn', 'email not sent: no SMTP configured, kept in mail_outbox', { subject: mail.subject });
      writeMailFile(deps, mail, log);
    } catch (err) {
      log('error', 'email not kept in the outbox', { subject: mail.subject, error: (err as Error).message });
    }
  };
  return {
    send: keep,
    async deliver(mail) {
      await keep(mail);
      throw new Error('no SMTP server is configured (SOUK_SMTP_URL); the mail was kept in the outbox');
    },
    async close() {},
  };
}

export function createMailer(deps: BaseDeps): Mailer {
  const log = logger(deps);
  return deps.config.smtpUrl ? smtpMailer(deps, deps.config.smtpUrl, log) : outboxMailer(deps, log);
}

declare module '../core/context.js' {
  interface Deps {
    /** Built in service.ts with the other platform services; drained after the modules stop. */
    mailer: Mailer;
  }
}
