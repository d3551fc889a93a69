// Webhook dispatch benchmark: commit-to-receiver latency at fixed order rates (50/100/200 per second), against the
// service in a child process as `npm start` runs it (the load generator and the receiver stay out of its event
// loop), and sustained deliveries per second against a raw got POST loop to the same receiver in the same run
// (in-process, to count the statements and to queue a backlog before the dispatcher starts).
// PostgreSQL (a fresh database) by default, BENCH_DB=embedded for PGlite. Loopback only, bounded in time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import got from 'got';
import pg from 'pg';
import { createRequire } from 'node:module';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { createContext } from '../src/core/context.js';
import { sendWebhookEvent } from '../src/webhooks/webhook.service.js';
import { deliveryPumpOf, DeliveryPump } from '../src/webhooks/dispatcher.js';
import { freshDatabase, json, machine, pct, send, startChild } from './lib.js';

// Statements sent to the database while the queue drains, per delivery: the ORM's and the
// queue's (pg-boss has its own copy of pg).
let statements = 0;
for (const driver of [pg, createRequire(new URL('../node_modules/pg-boss/package.json', import.meta.url))('pg') as typeof pg]) {
  const pgQuery = driver.Client.prototype.query;
  (driver.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    statements++;
    return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
  };
}

const RATES = (process.env.BENCH_RATES ?? '50,100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BURST = Number(process.env.BENCH_BURST ?? 2000);
const CONCURRENCY = 16;


let onDelivery: (body: Buffer, at: number) => void = () => {};
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200).end('ok');
    onDelivery(Buffer.concat(chunks), Date.now());
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const rxUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** Commit-to-receiver latency at each rate, the service alone in a child process. */
async function latencies(): Promise<void> {
  const ldb = process.env.BENCH_DB === 'embedded' ? null : await freshDatabase('latency');
  const child = await startChild(ldb?.url ?? null, { SOUK_DELIVERY_CONCURRENCY: String(CONCURRENCY) });
  try {
    const { token } = await json(child.url, 'POST', '/v1/users/auth/signup', { email: `latency${Date.now()}@example.com`, password: 'bench-password', name: 'Bench' });
    const store = await json(child.url, 'POST', '/v1/stores', { name: 'Bench' }, token);
    await json(child.url, 'POST', `/v1/stores/${store.id}/integrations/webhooks`, { name: 'bench', url: rxUrl, events: ['orderCreated'] }, token);
    const port = child.port;
    const orderBody = JSON.stringify({ customerName: 'Bench Buyer', items: [{ name: 'Tea', price: 350 }] });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    console.log(`${'rate/s'.padStart(7)}${'orders'.padStart(8)}${'written in s'.padStart(14)}${'delivered'.padStart(11)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}`);
    // A second at the first rate, not measured: the first deliveries pay for JIT compilation and
    // for opening the connections, which no steady rate should carry.
    const warm: Promise<unknown>[] = [];
    for (let i = 0; i < RATES[0]; i++) {
      warm.push(send(port, 'POST', `/v1/stores/${store.id}/orders`, headers, orderBody));
      await new Promise((r) => setTimeout(r, 1000 / RATES[0]));
    }
    await Promise.all(warm);
    await new Promise((r) => setTimeout(r, 1000));
    for (const rate of RATES) {
      const latencies: number[] = [];
      onDelivery = (body, at) => latencies.push(at - Date.parse(JSON.parse(body.toString()).timestamp));
      const total = rate * SECONDS;
      const started = Date.now();
      const writes: Promise<unknown>[] = [];
      let failed = 0;
      for (let i = 0; i < total; i++) {
        const wait = started + (i * 1000) / rate - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        writes.push(send(port, 'POST', `/v1/stores/${store.id}/orders`, headers, orderBody).then((r) => r.status === 201 || failed++, () => failed++));
      }
      await Promise.all(writes);
      const writeSeconds = (Date.now() - started) / 1000;
      const deadline = Date.now() + 30_000;
      while (latencies.length < total - failed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      latencies.sort((a, b) => a - b);
      console.log(`${String(rate).padStart(7)}${String(total).padStart(8)}${writeSeconds.toFixed(1).padStart(14)}${String(latencies.length).padStart(11)}${String(pct(latencies, 50)).padStart(9)}${String(pct(latencies, 99)).padStart(9)}${String(latencies[latencies.length - 1]).padStart(9)}${failed ? `  ${failed} writes failed` : ''}`);
      onDelivery = () => {};
      await new Promise((r) => setTimeout(r, 500));
    }

  } finally {
    await child.stop();
    await ldb?.drop();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
// PostgreSQL by default (a fresh database); BENCH_DB=embedded for the embedded PGlite.
const db = process.env.BENCH_DB === 'embedded' ? null : await freshDatabase('dispatch');
const config = loadConfig({
  ...process.env,
  ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }),
  SOUK_AUTH_RATE_LIMIT_IP: '100000',
  NODE_ENV: 'test',
  SOUK_DATA_DIR: dataDir,
  PORT: '0',
  SOUK_WEBHOOK_ALLOW_PRIVATE: '1',
  SOUK_WEBHOOK_ALLOW_HTTP: '1',
  SOUK_DELIVERY_CONCURRENCY: String(CONCURRENCY),
});
const service = await startService(config);
const api = async (method: string, path: string, token?: string, body?: unknown) => {
  const res = await fetch(service.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<any>;
};

try {
  console.log(`souk bench:dispatch  ${machine()}, ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}`);
  const { token } = await api('POST', '/v1/users/auth/signup', undefined, { email: `bench${Date.now()}@example.com`, password: 'bench-password', name: 'Bench' });
  const store = await api('POST', '/v1/stores', token, { name: 'Bench' });
  await api('POST', `/v1/stores/${store.id}/integrations/webhooks`, token, { name: 'bench', url: rxUrl, events: ['orderCreated', 'productCreated'] });
  await api('POST', `/v1/stores/${store.id}/products`, token, { name: 'Sample', price: 1 });
  const ctx = await createContext(service.deps, `Bearer ${token}`, '127.0.0.1');
  // 1. Latency at fixed rates: orders created over HTTP at a steady pace (open loop); from the
  // payload's timestamp (taken in the committing transaction) to the receiver's arrival.
  await latencies();

  // 2. Sustained throughput: deliveries queued while the worker is paused (manual send, one job
  // each), then drained; against a raw got POST loop of the same payload to the same receiver.
  const sample = (await api('GET', `/v1/stores/${store.id}/products?limit=1`, token)).data[0];
  const queue = service.deps.queue;
  await deliveryPumpOf(service.deps)!.stop();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < BURST; i++) {
    sends.push(sendWebhookEvent({ ...ctx, em: service.deps.orm.em.fork() as typeof ctx.em, memberships: new Map() }, store.id, { event: 'productCreated', productId: sample.id }));
    if (sends.length >= 32) await Promise.all(sends.splice(0));
  }
  await Promise.all(sends);
  let received = 0;
  onDelivery = () => received++;
  const queuedStart = Date.now();
  statements = 0;
  const pump = new DeliveryPump(service.deps, queue, config.deliveryConcurrency);
  pump.start();
  const burstDeadline = Date.now() + 60_000;
  while (received < BURST && Date.now() < burstDeadline) await new Promise((r) => setTimeout(r, 20));
  const dispatched = received;
  const drainStatements = statements;
  const dispatchRate = dispatched / ((Date.now() - queuedStart) / 1000);
  onDelivery = () => {};
  await pump.stop();

  const body = Buffer.from(JSON.stringify({ event: 'productCreated', timestamp: new Date().toISOString(), data: { store_id: store.id, product: sample }, webhook: { id: 'x', name: 'y' } }));
  let next = 0;
  const rawStart = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < BURST) await got.post(rxUrl, { body, headers: { 'content-type': 'application/json' }, retry: { limit: 0 } });
    }),
  );
  const rawRate = BURST / ((Date.now() - rawStart) / 1000);
  console.log(`throughput: dispatcher ${dispatchRate.toFixed(0)} deliveries/s (${dispatched}/${BURST}, queued first, then drained) vs raw got loop ${rawRate.toFixed(0)} req/s, raw concurrency ${CONCURRENCY}, dispatcher concurrency ${config.deliveryConcurrency}`);
  console.log(`ratio dispatcher/raw: ${(dispatchRate / rawRate).toFixed(2)}; ${(drainStatements / Math.max(1, dispatched)).toFixed(2)} database statements per delivery while draining`);
} finally {
  await service.close();
  await db?.drop();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
