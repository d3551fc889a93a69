// On a PostgreSQL server, every commit that queues deliveries NOTIFYs the delivery channel, so the
// processes that send (SOUK_ROLE worker or all) claim at once instead of at their next poll,
// whichever process wrote: an order (one statement), a product (a transaction), a manual send.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';
import { DELIVERY_CHANNEL } from '../src/events/queue.js';

const skip = process.env.DATABASE_URL ? false : 'NOTIFY crosses processes on a PostgreSQL server only (DATABASE_URL)';

let svc: TestService;
let api: Api;
let rx: Receiver;
let listener: pg.Client;
const notified: string[] = [];
let onNotify: () => void = () => {};

before(async () => {
  if (skip) return;
  rx = await startReceiver();
  // A web process sends nothing itself: what wakes a worker is all that leaves it.
  svc = await startTestService({ SOUK_ROLE: 'web', SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
  api = client(svc.url);
  listener = new pg.Client({ ...svc.service.deps.db.connection });
  await listener.connect();
  listener.on('notification', (msg) => {
    if (msg.channel !== DELIVERY_CHANNEL) return;
    notified.push(msg.payload ?? '');
    onNotify();
  });
  await listener.query(`listen ${DELIVERY_CHANNEL}`);
});
after(async () => {
  if (skip) return;
  await listener.end();
  await svc.close();
  await rx.close();
});

/** Runs `write` and resolves once a notification arrived after it started. */
async function notifiedBy(write: () => Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const seen = notified.length;
  const arrived = new Promise<void>((resolve) => {
    onNotify = () => {
      if (notified.length > seen) resolve();
    };
  });
  const res = await write();
  assert.equal(res.status, status, res.text);
  await arrived;
}

test('orders, products and manual sends that queue deliveries wake the sending processes', { skip, timeout: 300_000 }, async () => {
  const s = await ownerWithStore(api);
  const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'Wake', url: rx.url } });
  assert.equal(hook.status, 201, hook.text);
  await notifiedBy(() => api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Wake', items: [{ name: 'Tea', price: 350 }] } }), 201);
  await notifiedBy(() => api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Wake', price: 1 } }), 201);
  await notifiedBy(() => api('POST', `/v1/stores/${s.storeId}/integrations/webhooks/send`, { token: s.token, body: { event: 'orderCreated', data: { note: 'wake' } } }), 202);
});
