import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, verifySignature, sleep, type Receiver } from './receiver.js';

let svc: TestService;
let api: Api;
let rx: Receiver;

before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_PRIVATE: '1' });
  api = client(svc.url);
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await svc.close();
});

/** A store with one webhook pointing at a fresh path of the receiver. */
async function storeWithWebhook(body: Record<string, unknown> = {}) {
  const owner = await ownerWithStore(api);
  const path = `/hook/${owner.storeId}`;
  const created = await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: rx.url.replace('/hook', path), ...body },
  });
  assert.equal(created.status, 201, created.text);
  return { ...owner, webhook: created.body, path, fromHere: (r: { path: string }) => r.path === path };
}

describe('deliveries of the six events', () => {
  test('orderCreated: headers, signature over the raw bytes, payload shape', async () => {
    const s = await storeWithWebhook({ headers: { 'X-Custom': 'yes' } });
    const order = await api('POST', `/v1/stores/${s.storeId}/orders`, {
      token: s.token,
      body: { customerName: 'Ada', customerPhone: '+213555', items: [{ name: 'Tea', quantity: 2, price: 3.5 }] },
    });
    assert.equal(order.status, 201, order.text);
    assert.equal(order.body.total, 7);
    assert.equal(order.body.status, 'pending');
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    assert.equal(d.headers['content-type'], 'application/json');
    assert.equal(d.headers['user-agent'], 'Svc-Webhooks/2.0');
    assert.equal(d.headers['x-svc-event'], 'orderCreated');
    assert.equal(d.headers['x-svc-webhook-id'], s.webhook.id);
    assert.match(String(d.headers['x-svc-delivery']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(d.headers['x-svc-test'], undefined);
    assert.equal(d.headers['x-custom'], 'yes');
    assert.ok(verifySignature(s.webhook.secret, d.raw, d.headers['x-svc-signature-256']));
    assert.equal(`sha256=${d.headers['x-svc-signature']}`, d.headers['x-svc-signature-256']);
    assert.ok(!verifySignature(s.webhook.secret + 'x', d.raw, d.headers['x-svc-signature-256']));
    assert.deepEqual(Object.keys(d.json), ['event', 'timestamp', 'data', 'webhook']);
    assert.equal(d.json.event, 'orderCreated');
    assert.match(d.json.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(d.json.data.store_id, s.storeId);
    assert.deepEqual(d.json.data.order, order.body);
    assert.equal('previous_data' in d.json.data, false);
    assert.deepEqual(d.json.webhook, { id: s.webhook.id, name: 'Receiver' });
  });
});
