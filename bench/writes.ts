// Order-create throughput: 16 concurrent connections, one store, orders with one item, against
// the service in a child process (as `npm start` runs it). PostgreSQL and the embedded PGlite
// default in the same run, without a webhook and with one subscribed webhook whose every
// delivery must arrive at a local receiver. Prints the figures and the embedded/PostgreSQL ratio.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, fmt, freshDatabase, machine, send, startChild, userAndStore, json, type LoadResult } from './lib.js';

const CONCURRENCY = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_MS = 1_500;
const KINDS = (process.env.BENCH_DB ?? 'postgres,embedded').split(',');

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

interface Row {
  db: string;
  webhook: boolean;
  r: LoadResult;
  delivered?: number;
  drainMs?: number;
}
const rows: Row[] = [];

async function measure(kind: string) {
  const db = kind === 'postgres' ? await freshDatabase('writes') : null;
  const svc = await startChild(db?.url ?? null);
  try {
    const { token, storeId } = await userAndStore(svc.url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const body = JSON.stringify({ customerName: 'Bench Buyer', customerPhone: '0550000000', items: [{ name: 'Tea', price: 350, quantity: 2 }] });
    // BENCH_STORES=n spreads the writers over n stores of the same owner (one by default, as the goal is stated).
    const stores = [storeId];
    for (let i = 1; i < Number(process.env.BENCH_STORES ?? 1); i++) stores.push((await json(svc.url, 'POST', '/v1/stores', { name: `Bench ${i}` }, token)).id);
    const create = (i: number) => send(svc.port, 'POST', `/v1/stores/${stores[i % stores.length]}/orders`, headers, body);
    await closedLoop(CONCURRENCY, WARMUP_MS, 1e9, create);
    rows.push({ db: kind, webhook: false, r: await closedLoop(CONCURRENCY, SECONDS * 1000, 1e9, create) });

    for (const id of stores) await json(svc.url, 'POST', `/v1/stores/${id}/integrations/webhooks`, { name: 'bench', url: hookUrl, events: ['orderCreated'] }, token);
    received = 0;
    const r = await closedLoop(CONCURRENCY, SECONDS * 1000, 1e9, create);
    const doneAt = performance.now();
    const expected = r.requests - r.failures;
    while (received < expected && performance.now() - doneAt < 60_000) await new Promise((res) => setTimeout(res, 20));
    rows.push({ db: kind, webhook: true, r, delivered: received, drainMs: performance.now() - doneAt });
  } finally {
    await svc.stop();
    await db?.drop();
  }
}

try {
  for (const kind of KINDS) await measure(kind);
  console.log(`souk bench:writes  ${machine()}`);
  console.log(`POST /v1/stores/{id}/orders, one item, ${CONCURRENCY} connections, ${SECONDS} s per phase after a ${WARMUP_MS / 1000} s warm-up`);
  console.log('');
  console.log(`${'database'.padEnd(10)}${'webhook'.padEnd(9)}${'orders'.padStart(8)}${'failed'.padStart(8)}${'orders/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'delivered'.padStart(11)}${'drain ms'.padStart(10)}`);
  for (const x of rows) {
    console.log(
      `${x.db.padEnd(10)}${(x.webhook ? 'one' : 'none').padEnd(9)}${String(x.r.requests).padStart(8)}${String(x.r.failures).padStart(8)}${fmt(x.r.rps).padStart(10)}${fmt(x.r.p50, 1).padStart(9)}${fmt(x.r.p99, 1).padStart(9)}${(x.delivered === undefined ? '' : String(x.delivered)).padStart(11)}${(x.drainMs === undefined ? '' : fmt(x.drainMs)).padStart(10)}`,
    );
    if (x.r.firstFailure) console.log(`  first failure: ${x.r.firstFailure}`);
  }
  const find = (db: string, w: boolean) => rows.find((x) => x.db === db && x.webhook === w)?.r.rps ?? NaN;
  console.log('');
  for (const w of [false, true]) console.log(`embedded/PostgreSQL (${w ? 'one webhook' : 'no webhook'}): ${fmt(find('embedded', w) / find('postgres', w), 2)}`);
  if (rows.some((x) => x.r.failures || (x.delivered !== undefined && x.delivered < x.r.requests - x.r.failures))) process.exitCode = 1;
} finally {
  receiver.close();
  (await import('./lib.js')).agent.destroy();
}
