import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, verifySignature, sleep, type Receiver } from './receiver.js';

let svc: TestService;
let api: Api;
let rx: Receiver;

before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
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
    // paymentToken is shown to the creator only, never in a payload.
    const { paymentToken, ...created } = order.body;
    assert.match(paymentToken, /^opt_/);
    assert.deepEqual(d.json.data.order, created);
    assert.equal('previous_data' in d.json.data, false);
    assert.deepEqual(d.json.webhook, { id: s.webhook.id, name: 'Receiver' });
  });
});

const hooks = (storeId: string) => `/v1/stores/${storeId}/integrations/webhooks`;

describe('deliveries of the six events, continued', () => {
  test('orderUpdated carries previous_data; orderDeleted the deleted order', async () => {
    const s = await storeWithWebhook();
    const { paymentToken: _bo, ...order } = (await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Bo', items: [{ name: 'Cup', quantity: 1, price: 4 }] } })).body;
    const updated = await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { customerName: 'Bob', status: 'shipped' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token })).status, 204);
    const all = await rx.waitFor(3, 10_000, s.fromHere);
    const byEvent = Object.fromEntries(all.map((d) => [d.json.event, d.json]));
    assert.deepEqual(Object.keys(byEvent).sort(), ['orderCreated', 'orderDeleted', 'orderUpdated']);
    assert.deepEqual(byEvent.orderUpdated.data.order, updated.body);
    assert.equal(byEvent.orderUpdated.data.order.status, 'shipped');
    assert.deepEqual(byEvent.orderUpdated.data.previous_data, order);
    assert.equal(byEvent.orderDeleted.data.order.id, order.id);
    assert.equal(byEvent.orderDeleted.data.order.customerName, 'Bob');
    for (const d of all) assert.ok(verifySignature(s.webhook.secret, d.raw, d.headers['x-svc-signature-256']));
  });

  test('product events: created, updated with previous_data, deleted', async () => {
    const s = await storeWithWebhook();
    const p = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Green Tea', price: 12.5, stock: 3 } });
    assert.equal(p.status, 201, p.text);
    assert.equal(p.body.slug, 'green-tea');
    const u = await api('PATCH', `/v1/stores/${s.storeId}/products/${p.body.id}`, { token: s.token, body: { price: 10, stock: 2 } });
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/products/${p.body.id}`, { token: s.token })).status, 204);
    const all = await rx.waitFor(3, 10_000, s.fromHere);
    const byEvent = Object.fromEntries(all.map((d) => [d.json.event, d]));
    assert.deepEqual(Object.keys(byEvent).sort(), ['productCreated', 'productDeleted', 'productUpdated']);
    assert.deepEqual(byEvent.productCreated.json.data.product, p.body);
    assert.equal(byEvent.productCreated.headers['x-svc-event'], 'productCreated');
    const prod = byEvent.productUpdated.json.data;
    assert.deepEqual(prod.product, u.body);
    assert.equal(prod.previous_data.price, 12.5);
    assert.equal(prod.previous_data.stock, 3);
    assert.equal(typeof prod.product.price, 'number');
    assert.equal(byEvent.productDeleted.json.data.product.id, p.body.id);
    assert.equal('order' in byEvent.productCreated.json.data, false);
  });

  test('only subscribed events are sent; [] receives none; inactive receives none', async () => {
    const s = await storeWithWebhook({ events: ['product.created'] });
    const none = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'None', url: rx.url.replace('/hook', `/none/${s.storeId}`), events: [] } });
    const off = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Off', url: rx.url.replace('/hook', `/off/${s.storeId}`), active: false } });
    assert.equal(none.status, 201);
    assert.equal(off.status, 201);
    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'X', items: [{ name: 'I', quantity: 1, price: 1 }] } });
    await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Only this', price: 1 } });
    const got = await rx.waitFor(1, 10_000, s.fromHere);
    await sleep(1500);
    assert.deepEqual(rx.received.filter(s.fromHere).map((d) => d.json.event), ['productCreated']);
    assert.equal(got.length, 1);
    assert.equal(rx.received.filter((r) => r.path.includes(`/none/${s.storeId}`) || r.path.includes(`/off/${s.storeId}`)).length, 0);
  });

  test('writes that carry the inbound marker fire no webhook; a later write without it does (judged per write)', async () => {
    const s = await storeWithWebhook();
    const inbound = { connector: { integrationSource: 'inbound' } };
    const p = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Synced', price: 1, metadata: inbound } });
    await api('PATCH', `/v1/stores/${s.storeId}/products/${p.body.id}`, { token: s.token, body: { stock: 5, metadata: { ...inbound, note: 'again' } } });
    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'In', items: [{ name: 'I', quantity: 1, price: 1 }], metadata: inbound } });
    // The merchant's own edit: the stored record still holds the marker, the write does not.
    await api('PATCH', `/v1/stores/${s.storeId}/products/${p.body.id}`, { token: s.token, body: { stock: 9 } });
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    await sleep(1500);
    assert.equal(rx.received.filter(s.fromHere).length, 1);
    assert.equal(d.json.event, 'productUpdated');
    assert.equal(d.json.data.product.stock, 9);
    assert.deepEqual(d.json.data.product.metadata.connector, inbound.connector);
  });
});

describe('receiver answers', () => {
  test('2xx and 3xx are success (redirects not followed); 4xx and 5xx fail; body kept to 1,024 characters', async () => {
    const s = await storeWithWebhook();
    const url = `${hooks(s.storeId)}/${s.webhook.id}`;
    const cases: Array<[number, string, string, number | null]> = [
      [204, '', 'success', 204],
      [302, 'moved', 'success', 302],
      [404, 'nope', 'failed', 404],
      [503, 'x'.repeat(3000), 'failed', 503],
    ];
    for (const [code, body, status, statusCode] of cases) {
      rx.setResponder((_r, res) => {
        res.writeHead(code, code === 302 ? { location: 'https://127.0.0.1:1/elsewhere' } : {});
        res.end(body);
      });
      const res = await api('POST', `${url}/test`, { token: s.token, body: {} });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, status, `${code}`);
      assert.equal(res.body.statusCode, statusCode);
      assert.equal(res.body.responseBody, body.slice(0, 1024));
      assert.equal(res.body.test, true);
      assert.equal(typeof res.body.responseTimeMs, 'number');
      if (status === 'failed') assert.ok(res.body.error);
      else assert.equal(res.body.error, null);
    }
    rx.setResponder((_r, res) => res.writeHead(200).end('ok'));
    assert.equal(rx.received.filter((r) => r.path === '/elsewhere').length, 0);
  });

  test('connection refused is failed with statusCode null and an error', async () => {
    const s = await ownerWithStore(api);
    const res = await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url: 'https://127.0.0.1:1/hook' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.statusCode, null);
    assert.equal(res.body.error, 'connection refused');
  });

  test('a receiver slower than the 10 s test timeout fails with the timeout error', async () => {
    const s = await ownerWithStore(api);
    const slow = await startReceiver((_r, res) => {
      setTimeout(() => res.writeHead(200).end('late'), 11_500);
    });
    try {
      const res = await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url: slow.url } });
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.statusCode, null);
      assert.equal(res.body.error, 'timeout after 10000 ms');
      assert.ok(res.body.responseTimeMs >= 9900 && res.body.responseTimeMs < 11_000, String(res.body.responseTimeMs));
    } finally {
      await slow.close();
    }
  });
});

describe('test deliveries', () => {
  test('POST /{id}/test sends a signed sample with X-Svc-Test, works while inactive, and is in history with test: true', async () => {
    const s = await storeWithWebhook({ active: false, headers: { 'X-Tenant': 't1' } });
    const res = await api('POST', `${hooks(s.storeId)}/${s.webhook.id}/test`, { token: s.token, body: { event: 'product.updated' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'error', 'event', 'id', 'redeliveryOf', 'responseBody', 'responseTimeMs', 'status', 'statusCode', 'test', 'timings', 'url', 'webhookId']);
    assert.equal(res.body.event, 'productUpdated');
    assert.equal(res.body.status, 'success');
    const [d] = await rx.waitFor(1, 5000, s.fromHere);
    assert.equal(d.headers['x-svc-test'], 'true');
    assert.equal(d.headers['x-tenant'], 't1');
    assert.equal(d.headers['x-svc-delivery'], res.body.id);
    assert.ok(verifySignature(s.webhook.secret, d.raw, d.headers['x-svc-signature-256']));
    assert.equal(d.json.event, 'productUpdated');
    assert.equal(d.json.data.store_id, s.storeId);
    assert.ok(d.json.data.product && 'previous_data' in d.json.data);
    const history = await api('GET', `${hooks(s.storeId)}/${s.webhook.id}/history`, { token: s.token });
    assert.equal(history.body.data.length, 1);
    assert.deepEqual(history.body.data[0], res.body);
    const dflt = await api('POST', `${hooks(s.storeId)}/${s.webhook.id}/test`, { token: s.token });
    assert.equal(dflt.body.event, 'orderCreated');
    assertProblem(await api('POST', `${hooks(s.storeId)}/${s.webhook.id}/test`, { token: s.token, body: { event: 'nope' } }), 400, 'VALIDATION_FAILED');
  });

  test('POST /test tries a url: a fresh secret signs it and comes back; nothing is recorded', async () => {
    const s = await storeWithWebhook();
    const path = `/adhoc/${s.storeId}`;
    const res = await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url: rx.url.replace('/hook', path), event: 'order_deleted', headers: { 'X-A': 'b' } } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.secret, /^whsec_[0-9a-f]{48}$/);
    assert.equal(res.body.status, 'success');
    assert.equal(res.body.event, 'orderDeleted');
    const [d] = await rx.waitFor(1, 5000, (r) => r.path === path);
    assert.equal(d.headers['x-svc-test'], 'true');
    assert.equal(d.headers['x-a'], 'b');
    assert.ok(verifySignature(res.body.secret, d.raw, d.headers['x-svc-signature-256']));
    const given = await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url: rx.url.replace('/hook', path), secret: 'whsec_mine' } });
    assert.equal('secret' in given.body, false);
    const [, d2] = await rx.waitFor(2, 5000, (r) => r.path === path);
    assert.ok(verifySignature('whsec_mine', d2.raw, d2.headers['x-svc-signature-256']));
    assert.equal((await api('GET', `${hooks(s.storeId)}/${s.webhook.id}/history`, { token: s.token })).body.data.length, 0);
    assertProblem(await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: {} }), 400, 'VALIDATION_FAILED');
  });
});

describe('manual send', () => {
  test('POST /send queues one delivery per subscribed active webhook with the current record (202)', async () => {
    const s = await storeWithWebhook({ events: ['orderUpdated'] });
    const other = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Products only', url: rx.url.replace('/hook', `/p/${s.storeId}`), events: ['productCreated'] } });
    assert.equal(other.status, 201);
    const { paymentToken: _cy, ...order } = (await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Cy', items: [{ name: 'I', quantity: 3, price: 2 }] } })).body;
    const sent = await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'order.updated', orderId: order.id } });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.data.length, 1);
    assert.equal(sent.body.data[0].webhookId, s.webhook.id);
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    assert.equal(d.headers['x-svc-delivery'], sent.body.data[0].deliveryId);
    assert.deepEqual(d.json.data.order, order);
    assert.equal(d.json.data.previous_data, null);
    const withData = await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'productCreated', data: { product: { id: 'p1', name: 'Given' } } } });
    assert.equal(withData.body.data.length, 1);
    assert.equal(withData.body.data[0].webhookId, other.body.id);
    const [p] = await rx.waitFor(1, 10_000, (r) => r.path === `/p/${s.storeId}`);
    assert.deepEqual(p.json.data, { product: { id: 'p1', name: 'Given' }, store_id: s.storeId });
    const product = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Sent by hand', price: 4.5 } });
    const byId = await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'productCreated', productId: product.body.id } });
    assert.deepEqual(byId.body.data.map((x: any) => x.webhookId), [other.body.id]);
    const [q] = await rx.waitFor(1, 10_000, (r) => r.headers['x-svc-delivery'] === byId.body.data[0].deliveryId);
    assert.deepEqual(q.json.data.product, product.body);
    assertProblem(await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'productCreated', productId: 'prd_missing' } }), 404, 'NOT_FOUND');
    const only = await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'productCreated', data: {}, webhookIds: [s.webhook.id] } });
    assert.deepEqual(only.body.data, []);
    assertProblem(await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'orderCreated' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'bogus', data: {} } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'orderCreated', orderId: 'ord_missing' } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `${hooks(s.storeId)}/send`, { token: s.token, body: { event: 'productCreated', orderId: order.id } }), 400, 'VALIDATION_FAILED');
    const history = await api('GET', `${hooks(s.storeId)}/${s.webhook.id}/history`, { token: s.token });
    assert.equal(history.body.data[0].id, sent.body.data[0].deliveryId);
    assert.equal(history.body.data[0].test, false);
  });
});

describe('history', () => {
  test('keeps the last 50 attempts, newest first, and records failures', async () => {
    const s = await storeWithWebhook();
    const url = `${hooks(s.storeId)}/${s.webhook.id}`;
    const ids: string[] = [];
    rx.setResponder((_r, res) => res.writeHead(500).end('boom'));
    for (let i = 0; i < 53; i++) ids.push((await api('POST', `${url}/test`, { token: s.token })).body.id);
    rx.setResponder((_r, res) => res.writeHead(200).end('ok'));
    const history = await api('GET', `${url}/history`, { token: s.token });
    assert.equal(history.body.data.length, 50);
    assert.deepEqual(history.body.data.map((h: any) => h.id), ids.slice(3).reverse());
    const h = history.body.data[0];
    assert.equal(h.status, 'failed');
    assert.equal(h.statusCode, 500);
    assert.equal(h.responseBody, 'boom');
    assert.equal(h.webhookId, s.webhook.id);
    const count = await svc.service.deps.orm.em.fork().getConnection().execute('select count(*)::int as n from webhook_deliveries where webhook_id = ?', [s.webhook.id]);
    assert.equal(count[0].n, 50);
  });
});

describe('secrets', () => {
  test('after rotation deliveries are signed with the new secret only', async () => {
    const s = await storeWithWebhook();
    const rotated = await api('PATCH', `${hooks(s.storeId)}/${s.webhook.id}`, { token: s.token, body: { rotateSecret: true } });
    await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'After rotation', price: 1 } });
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    assert.ok(verifySignature(rotated.body.secret, d.raw, d.headers['x-svc-signature-256']));
    assert.ok(!verifySignature(s.webhook.secret, d.raw, d.headers['x-svc-signature-256']));
  });
});
