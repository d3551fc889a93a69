// Webhook dispatch benchmark, on PostgreSQL (fresh databases), every service in a child process as
// `npm start` runs it, the load generator and the receiver in this one:
// 1. the order-create capacity (16 connections, one store, no webhook), measured first;
// 2. commit-to-receiver latency at BENCH_SHARE (default 40 %) of that capacity, orders over HTTP at
//    a steady pace, one subscribed webhook: one process in the default role (`all`), then a `web`
//    process taking the writes and a `worker` process sending;
// 3. deliveries per second of 1 and of 2 `worker` processes draining the same backlog, with the
//    workers' CPU per delivery: once against a receiver that answers at once, once against one
//    that answers after BENCH_RECEIVER_MS (default 20 ms), as a receiver across a network does.
// The latency is taken from the payload's `timestamp` (set in the writing transaction, so it also
// holds the write's own time to commit) to the receiver's arrival; the write's own latency is
// printed beside it. Loopback only, bounded in time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, cpuMs, fmt, freshDatabase, json, machine, pct, send, startChild, userAndStore, type RunningService } from './lib.js';

const SHARE = Number(process.env.BENCH_SHARE ?? 0.4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CAPACITY_SECONDS = Number(process.env.BENCH_CAPACITY_SECONDS ?? 6);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 3000);
const RECEIVER_MS = Number(process.env.BENCH_RECEIVER_MS ?? 20);
const CONCURRENCY = 16;
const WEBHOOKS = 10;

let receiverDelay = 0;
let onDelivery: (body: Buffer, at: number) => void = () => {};
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const answer = () => res.writeHead(200).end('ok');
    if (receiverDelay) setTimeout(answer, receiverDelay);
    else answer();
    onDelivery(Buffer.concat(chunks), at);
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const ORDER = JSON.stringify({ customerName: 'Bench Buyer', items: [{ name: 'Tea', price: 350 }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Orders created at a steady `rate` for `seconds` (open loop); returns the write latencies. */
async function steady(svc: RunningService, storeId: string, token: string, rate: number, seconds: number): Promise<{ writes: number[]; failed: number; took: number }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const total = Math.round(rate * seconds);
  const writes: number[] = [];
  let failed = 0;
  const started = Date.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    const t = performance.now();
    pending.push(
      send(svc.port, 'POST', `/v1/stores/${storeId}/orders`, headers, ORDER).then(
        (r) => (r.status === 201 ? writes.push(performance.now() - t) : failed++),
        () => failed++,
      ),
    );
  }
  await Promise.all(pending);
  return { writes: writes.sort((a, b) => a - b), failed, took: (Date.now() - started) / 1000 };
}

interface LatencyRow {
  name: string;
  rate: number;
  delivered: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  writeP50: number;
  writeP99: number;
  took: number;
}

/** Commit-to-receiver latency at `rate` orders/s: `web` takes the writes, the deliveries arrive from whichever process sends them. */
async function latency(name: string, web: RunningService, rate: number): Promise<LatencyRow> {
  const { token, storeId } = await userAndStore(web.url, 'latency');
  await json(web.url, 'POST', `/v1/stores/${storeId}/integrations/webhooks`, { name: 'bench', url: hookUrl, events: ['orderCreated'] }, token);
  const latencies: number[] = [];
  onDelivery = (body, at) => latencies.push(at - Date.parse(JSON.parse(body.toString()).timestamp));
  // One second at the rate, not counted: JIT compilation and opening connections are no steady state.
  await steady(web, storeId, token, rate, 1);
  await sleep(1000);
  latencies.length = 0;
  const { writes, failed, took } = await steady(web, storeId, token, rate, SECONDS);
  const expected = writes.length;
  const deadline = Date.now() + 60_000;
  while (latencies.length < expected && Date.now() < deadline) await sleep(20);
  onDelivery = () => {};
  latencies.sort((a, b) => a - b);
  if (failed) console.log(`  ${name}: ${failed} writes failed`);
  return { name, rate, delivered: latencies.length, expected, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies[latencies.length - 1], writeP50: pct(writes, 50), writeP99: pct(writes, 99), took };
}

interface DrainRow {
  workers: number;
  receiverMs: number;
  perSecond: number;
  cpuMsPerDelivery: number;
}

/**
 * A backlog of BACKLOG deliveries queued through a `web` process (which sends none), then drained
 * by `workers` fresh `worker` processes; deliveries per second from the first arrival to the last.
 */
async function drain(url: string, web: RunningService, token: string, storeId: string, workers: number, receiverMs: number): Promise<DrainRow> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const orders = Math.ceil(BACKLOG / WEBHOOKS);
  await closedLoop(CONCURRENCY, 600_000, orders, () => send(web.port, 'POST', `/v1/stores/${storeId}/orders`, headers, ORDER));
  receiverDelay = receiverMs;
  let received = 0;
  let first = 0;
  let last = 0;
  onDelivery = (_body, at) => {
    received++;
    first ||= at;
    last = at;
  };
  const procs = await Promise.all(Array.from({ length: workers }, () => startChild(url, { SOUK_ROLE: 'worker' })));
  const cpuBefore = procs.reduce((s, p) => s + cpuMs(p.proc.pid!), 0);
  const deadline = Date.now() + 120_000;
  while (received < orders * WEBHOOKS && Date.now() < deadline) await sleep(20);
  const cpu = procs.reduce((s, p) => s + cpuMs(p.proc.pid!), 0) - cpuBefore;
  await Promise.all(procs.map((p) => p.stop()));
  onDelivery = () => {};
  receiverDelay = 0;
  if (received < orders * WEBHOOKS) console.log(`  ${workers} worker(s): ${received} of ${orders * WEBHOOKS} delivered in 120 s`);
  return { workers, receiverMs, perSecond: (received - 1) / Math.max(0.001, (last - first) / 1000), cpuMsPerDelivery: cpu / Math.max(1, received) };
}

const dbs: Array<{ drop(): Promise<void> }> = [];
const children: RunningService[] = [];
const child = async (url: string, env: Record<string, string>) => {
  const c = await startChild(url, env);
  children.push(c);
  return c;
};
try {
  console.log(`souk bench:dispatch  ${machine()}, PostgreSQL`);

  // 1. Capacity: order creates per second, no webhook, the default role.
  const capDb = await freshDatabase('capacity');
  dbs.push(capDb);
  const all = await child(capDb.url, {});
  const cap = await userAndStore(all.url, 'capacity');
  const capHeaders = { 'content-type': 'application/json', authorization: `Bearer ${cap.token}` };
  const create = () => send(all.port, 'POST', `/v1/stores/${cap.storeId}/orders`, capHeaders, ORDER);
  await closedLoop(CONCURRENCY, 1500, 1e9, create);
  const capacity = (await closedLoop(CONCURRENCY, CAPACITY_SECONDS * 1000, 1e9, create)).rps;
  const rate = Math.max(1, Math.round(capacity * SHARE));
  console.log(`order-create capacity: ${fmt(capacity)}/s (16 connections, no webhook); latency runs at ${Math.round(SHARE * 100)} %: ${rate} orders/s for ${SECONDS} s`);

  // 2. Latency, default role (the same process), then web + worker.
  const rows: LatencyRow[] = [await latency('all (one process)', all, rate)];
  const splitDb = await freshDatabase('split');
  dbs.push(splitDb);
  const web = await child(splitDb.url, { SOUK_ROLE: 'web' });
  await child(splitDb.url, { SOUK_ROLE: 'worker' });
  rows.push(await latency('web + worker', web, rate));
  console.log('');
  console.log(`${'roles'.padEnd(20)}${'orders/s'.padStart(9)}${'delivered'.padStart(12)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'write p50'.padStart(11)}${'write p99'.padStart(11)}${'written in s'.padStart(14)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(20)}${String(r.rate).padStart(9)}${`${r.delivered}/${r.expected}`.padStart(12)}${fmt(r.p50).padStart(8)}${fmt(r.p99).padStart(8)}${fmt(r.max).padStart(8)}${fmt(r.writeP50).padStart(11)}${fmt(r.writeP99).padStart(11)}${fmt(r.took, 1).padStart(14)}`);
  }
  for (const c of children.splice(0)) await c.stop();

  // 3. Throughput of 1 and 2 workers on the same backlog shape.
  const drainDb = await freshDatabase('drain');
  dbs.push(drainDb);
  const queuer = await child(drainDb.url, { SOUK_ROLE: 'web' });
  const owner = await userAndStore(queuer.url, 'drain');
  for (let i = 0; i < WEBHOOKS; i++) await json(queuer.url, 'POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { name: `bench ${i}`, url: `${hookUrl}/${i}`, events: ['orderCreated'] }, owner.token);
  const drains: DrainRow[] = [];
  for (const receiverMs of [0, RECEIVER_MS]) for (const workers of [1, 2]) drains.push(await drain(drainDb.url, queuer, owner.token, owner.storeId, workers, receiverMs));
  console.log('');
  console.log(`backlog of ${Math.ceil(BACKLOG / WEBHOOKS) * WEBHOOKS} deliveries (${WEBHOOKS} webhooks), drained by worker processes (SOUK_DELIVERY_CONCURRENCY default)`);
  console.log(`${'receiver answers'.padEnd(20)}${'workers'.padStart(8)}${'deliveries/s'.padStart(14)}${'per worker'.padStart(12)}${'CPU ms/delivery'.padStart(17)}`);
  for (const d of drains) {
    console.log(`${(d.receiverMs ? `after ${d.receiverMs} ms` : 'at once').padEnd(20)}${String(d.workers).padStart(8)}${fmt(d.perSecond).padStart(14)}${fmt(d.perSecond / d.workers).padStart(12)}${fmt(d.cpuMsPerDelivery, 2).padStart(17)}`);
  }
  for (const receiverMs of [0, RECEIVER_MS]) {
    const [one, two] = drains.filter((d) => d.receiverMs === receiverMs);
    console.log(`2 workers / 1 worker, receiver ${receiverMs ? `after ${receiverMs} ms` : 'at once'}: ${fmt(two.perSecond / one.perSecond, 2)}`);
  }
  console.log(`load after the run: ${machine()}`);
} finally {
  for (const c of children) await c.stop().catch(() => {});
  for (const d of dbs) await d.drop().catch(() => {});
  receiver.closeAllConnections();
  receiver.close();
}
