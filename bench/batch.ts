// applyMany of 500 orders (POST /v1/stores/{id}/orders/applyMany) with one subscribed
// webhook: wall time and the statements sent to PostgreSQL for the whole batch (every pg client
// query of the service process is counted), beside 500 single applies for comparison.
// The service runs in-process so its queries can be counted; PostgreSQL from DATABASE_URL or a
// fresh database on 127.0.0.1.
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { fmt, freshDatabase, json, machine } from './lib.js';

const N = Number(process.env.BENCH_ORDERS ?? 500);
let counting = false;
let statements = 0;
const query = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
};

const db = await freshDatabase('batch');
const svc = await startService(
  loadConfig({ ...process.env, DATABASE_URL: db.url, NODE_ENV: 'production', LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', SOUK_SECRET_KEY: '00'.repeat(32), SOUK_WEBHOOK_ALLOW_PRIVATE: '1', SOUK_WEBHOOK_ALLOW_HTTP: '1', SOUK_AUTH_RATE_LIMIT: '100000', SOUK_AUTH_RATE_LIMIT_IP: '100000' }),
);
try {
  const { token } = await json(svc.url, 'POST', '/v1/users/auth/signup', { email: `batch${Date.now()}@example.com`, password: 'bench-password', name: 'Batch' });
  const store = await json(svc.url, 'POST', '/v1/stores', { name: 'Batch' }, token);
  // A receiver that is not there: deliveries fail fast and are recorded, the batch is what is measured.
  await json(svc.url, 'POST', `/v1/stores/${store.id}/integrations/webhooks`, { name: 'b', url: 'http://127.0.0.1:9/hook', events: ['orderUpdated'] }, token);
  const statuses = (await json(svc.url, 'GET', `/v1/stores/${store.id}/statuses`, undefined, token)).data as Array<{ id: string; kind: string }>;
  const [processing, shipped] = statuses.filter((s) => s.kind === 'other');
  const ids: string[] = [];
  for (let i = 0; i < N; i += 25) {
    const made = await Promise.all(Array.from({ length: Math.min(25, N - i) }, (_, k) => json(svc.url, 'POST', `/v1/stores/${store.id}/orders`, { customerName: `B${i + k}`, items: [{ name: 'Tea', price: 1 }] }, token)));
    ids.push(...made.map((o) => o.id));
  }

  counting = true;
  statements = 0;
  let t0 = performance.now();
  const batch = await json(svc.url, 'POST', `/v1/stores/${store.id}/orders/applyMany`, { orderIds: ids, statusId: processing.id }, token);
  const batchMs = performance.now() - t0;
  const batchStatements = statements;
  counting = false;
  if (batch.data.length !== N) throw new Error(`applyMany moved ${batch.data.length} of ${N}`);

  counting = true;
  statements = 0;
  t0 = performance.now();
  for (const id of ids) await json(svc.url, 'POST', `/v1/stores/${store.id}/orders/${id}/apply`, { statusId: shipped.id }, token);
  const singleMs = performance.now() - t0;
  const singleStatements = statements;
  counting = false;

  console.log(`souk bench:batch  ${machine()}, PostgreSQL, ${N} orders, one subscribed webhook`);
  console.log('');
  console.log(`${'operation'.padEnd(26)}${'ms'.padStart(9)}${'statements'.padStart(12)}`);
  console.log(`${'applyMany (one call)'.padEnd(26)}${fmt(batchMs).padStart(9)}${String(batchStatements).padStart(12)}`);
  console.log(`${`${N} single applies`.padEnd(26)}${fmt(singleMs).padStart(9)}${String(singleStatements).padStart(12)}`);
  console.log(`batch/single time ${fmt(batchMs / singleMs, 3)}; statements include the request's token check and BEGIN/COMMIT`);
} finally {
  await svc.close();
  await db.drop();
}
