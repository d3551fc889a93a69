import { createServer } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: any;
  at: number;
}

export type Responder = (req: Received, res: ServerResponse) => void;

/** An HTTPS receiver on 127.0.0.1 with the certificate scripts/test.mjs made (and Node trusts). */
export async function startReceiver(responder?: Responder) {
  const certFile = process.env.SOUK_TEST_TLS_CERT;
  const keyFile = process.env.SOUK_TEST_TLS_KEY;
  if (!certFile || !keyFile) throw new Error('run tests through `npm test` (scripts/test.mjs), which provides the TLS certificate');
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let respond: Responder = responder ?? ((_r, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown = null;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = null;
      }
      const r: Received = { path: req.url ?? '/', headers: req.headers, raw, json, at: Date.now() };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      respond(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    received,
    setResponder(fn: Responder) {
      respond = fn;
    },
    /** Resolves once `count` requests (matching `filter`) arrived; rejects after `ms`. */
    async waitFor(count: number, ms = 10_000, filter: (r: Received) => boolean = () => true): Promise<Received[]> {
      const deadline = Date.now() + ms;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} deliveries, got ${matching.length}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** An independent check of a delivery's signature, the way a receiver guide says to. */
export function verifySignature(secret: string, raw: Buffer, header256: string | string[] | undefined): boolean {
  if (typeof header256 !== 'string' || !header256.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(raw).digest('hex');
  const given = header256.slice('sha256='.length);
  if (given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
