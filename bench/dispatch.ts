// Webhook dispatch benchmark: commit-to-receiver latency at a fixed event rate, and sustained
// deliveries per second against a raw got POST loop to the same receiver in the same run.
// Uses DATABASE_URL when set, an embedded PGlite otherwise. Loopback only, bounded in time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import got from 'got';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { createContext } from '../src/core/context.js';
import { createProduct } from '../src/domains/products/product.service.js';
import { sendWebhookEvent } from '../src/webhooks/webhook.service.js';
import { DeliveryPump } from '../src/webhooks/dispatcher.js';
import { getQueue } from '../src/events/queue.js';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BURST = Number(process.env.BENCH_BURST ?? 2000);
const CONCURRENCY = 16;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

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

const dataDir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
const config = loadConfig({
  ...process.env,
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
  console.log(`database: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}`);
  const { token } = await api('POST', '/v1/users/auth/signup', undefined, { email: `bench${Date.now()}@example.com`, password: 'bench-password', name: 'Bench' });
  const store = await api('POST', '/v1/stores', token, { name: 'Bench' });
  await api('POST', `/v1/stores/${store.id}/integrations/webhooks`, token, { name: 'bench', url: rxUrl, events: ['productCreated'] });

  // 1. Latency at a fixed rate: payload timestamp (written in the committing transaction) to arrival.
  const latencies: number[] = [];
  onDelivery = (body, at) => latencies.push(at - Date.parse(JSON.parse(body.toString()).timestamp));
  const total = RATE * SECONDS;
  const started = Date.now();
  // Events are written through the service layer (one transaction each, as an API write does);
  // the HTTP and GraphQL cost of the write itself is measured by bench:http.
  const ctx = await createContext(service.deps, `Bearer ${token}`, '127.0.0.1');
  const writes: Promise<unknown>[] = [];
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    writes.push(createProduct({ ...ctx, em: service.deps.orm.em.fork() as typeof ctx.em, memberships: new Map() }, store.id, { name: `p${i}`, price: 1 }).catch(() => failed++));
  }
  await Promise.all(writes);
  if (failed) console.log(`${failed} writes failed`);
  const writeSeconds = (Date.now() - started) / 1000;
  const deadline = Date.now() + 30_000;
  while (latencies.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  console.log(
    `latency at ${RATE} events/s for ${SECONDS} s (${total} events, writes took ${writeSeconds.toFixed(1)} s, ${latencies.length} delivered): ` +
      `p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${Math.max(...latencies)} ms`,
  );

  // 2. Sustained throughput: deliveries queued while the worker is paused (manual send, one job
  // each), then drained; against a raw got POST loop of the same payload to the same receiver.
  const sample = (await api('GET', `/v1/stores/${store.id}/products?limit=1`, token)).data[0];
  const queue = getQueue(service.deps);
  await (service.deps.deliveryPump!).stop();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < BURST; i++) {
    sends.push(sendWebhookEvent({ ...ctx, em: service.deps.orm.em.fork() as typeof ctx.em, memberships: new Map() }, store.id, { event: 'productCreated', productId: sample.id }));
    if (sends.length >= 32) await Promise.all(sends.splice(0));
  }
  await Promise.all(sends);
  let received = 0;
  onDelivery = () => received++;
  const queuedStart = Date.now();
  const pump = new DeliveryPump(service.deps, queue, config.deliveryConcurrency);
  pump.start();
  const burstDeadline = Date.now() + 60_000;
  while (received < BURST && Date.now() < burstDeadline) await new Promise((r) => setTimeout(r, 20));
  const dispatched = received;
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
  console.log(`ratio dispatcher/raw: ${(dispatchRate / rawRate).toFixed(2)}`);
} finally {
  await service.close();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
