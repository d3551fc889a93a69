import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { sendAttempt, type Attempt } from '../src/webhooks/sender.js';

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

async function storeWithWebhook() {
  const owner = await ownerWithStore(api);
  const path = `/hook/${owner.storeId}`;
  const created = await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: rx.url.replace('/hook', path) },
  });
  assert.equal(created.status, 201, created.text);
  return { ...owner, webhook: created.body, path, fromHere: (r: { path: string }) => r.path === path, base: `/v1/stores/${owner.storeId}/integrations/webhooks/${created.body.id}` };
}

async function historyOf(s: Awaited<ReturnType<typeof storeWithWebhook>>, count: number) {
  for (let i = 0; i < 100; i++) {
    const h = await api('GET', `${s.base}/history`, { token: s.token });
    if (h.body.data.length >= count) return h.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`history never reached ${count} entries`);
}

describe('Standard Webhooks headers', () => {
  test('the standardwebhooks library verifies a real delivery with the webhook secret string unchanged', async () => {
    const s = await storeWithWebhook();
    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }] } });
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    assert.equal(d.headers['webhook-id'], d.headers['x-svc-delivery']);
    assert.match(String(d.headers['webhook-timestamp']), /^\d{10}$/);
    assert.match(String(d.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    const headers = { 'webhook-id': String(d.headers['webhook-id']), 'webhook-timestamp': String(d.headers['webhook-timestamp']), 'webhook-signature': String(d.headers['webhook-signature']) };
    const verified = new StandardWebhook(s.webhook.secret).verify(d.raw.toString('utf8'), headers) as { event: string };
    assert.equal(verified.event, 'orderCreated');
    const other = `whsec_${'0'.repeat(48)}`;
    assert.throws(() => new StandardWebhook(other).verify(d.raw.toString('utf8'), headers));
    // The seed's own signature is unchanged: HMAC keyed by the whole secret string.
    assert.ok(d.headers['x-svc-signature-256']);
  });
});

describe('delivery history', () => {
  test('entries carry per-phase timings', async () => {
    const s = await storeWithWebhook();
    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada' } });
    const [entry] = await historyOf(s, 1);
    assert.equal(entry.status, 'success');
    const t = entry.timings;
    assert.ok(t, 'timings present');
    assert.equal(typeof t.total, 'number');
    assert.ok(t.total >= 0);
    assert.equal(typeof t.connect, 'number');
    assert.equal(typeof t.tls, 'number', 'an https receiver has a TLS phase');
    assert.equal(typeof t.firstByte, 'number');
    assert.equal(entry.redeliveryOf, null);
  });

  test('timings on a kept-alive connection: no lookup, connect or TLS phase of its own, and no phase longer than the total', async () => {
    const sockets: string[] = [];
    const server = createHttpsServer({ cert: readFileSync(process.env.SOUK_TEST_TLS_CERT!), key: readFileSync(process.env.SOUK_TEST_TLS_KEY!) }, (req, res) => {
      sockets.push(`${req.socket.remotePort}`);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    // Longer than any pause between the two attempts: the second finds the first's connection open.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const attempt: Attempt = {
        url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        event: 'orderCreated',
        deliveryId: 'd1',
        webhookId: 'w1',
        secret: `whsec_${'0'.repeat(48)}`,
        customHeaders: {},
        body: Buffer.from('{}'),
        test: false,
        timeoutMs: 60_000,
        allowed: () => true,
      };
      const first = await sendAttempt(attempt);
      const second = await sendAttempt({ ...attempt, deliveryId: 'd2' });
      assert.equal(sockets.length, 2);
      assert.equal(sockets[1], sockets[0], 'the second attempt went over the first one\'s connection');
      assert.equal(first.status, 'success');
      assert.equal(second.status, 'success');
      assert.equal(typeof first.timings.tls, 'number', 'the first attempt made the connection');
      assert.deepEqual({ dns: second.timings.dns, connect: second.timings.connect, tls: second.timings.tls }, { dns: 0, connect: 0, tls: 0 });
      for (const t of [first.timings, second.timings]) {
        for (const phase of [t.dns, t.connect, t.tls, t.firstByte]) assert.ok(phase === null || (phase >= 0 && phase <= t.total), JSON.stringify(t));
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('redelivery', () => {
  test('POST /history/{deliveryId}/redeliver sends the same payload with a new X-Svc-Delivery, recorded with redeliveryOf', async () => {
    const s = await storeWithWebhook();
    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada' } });
    const [first] = await rx.waitFor(1, 10_000, s.fromHere);
    const [entry] = await historyOf(s, 1);
    const res = await api('POST', `${s.base}/history/${entry.id}/redeliver`, { token: s.token });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.redeliveryOf, entry.id);
    assert.equal(res.body.webhookId, s.webhook.id);
    assert.notEqual(res.body.deliveryId, entry.id);
    const all = await rx.waitFor(2, 10_000, s.fromHere);
    const again = all[1];
    assert.equal(again.headers['x-svc-delivery'], res.body.deliveryId);
    assert.deepEqual(again.raw, first.raw, 'the same payload bytes');
    const history = await historyOf(s, 2);
    assert.equal(history[0].id, res.body.deliveryId);
    assert.equal(history[0].redeliveryOf, entry.id);

    const gql = await api('POST', '/graphql', {
      token: s.token,
      body: { query: `mutation($s: ID!, $w: ID!, $d: ID!) { redeliverWebhookDelivery(storeId: $s, webhookId: $w, deliveryId: $d) { redeliveryOf } }`, variables: { s: s.storeId, w: s.webhook.id, d: entry.id } },
    });
    assert.equal(gql.body.data.redeliverWebhookDelivery.redeliveryOf, entry.id, gql.text);
  });

  test('unknown, foreign and test deliveries; viewers; the per-store rate limit', async () => {
    const s = await storeWithWebhook();
    assertProblem(await api('POST', `${s.base}/history/00000000-0000-0000-0000-000000000000/redeliver`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `${s.base}/history/nope/redeliver`, { token: s.token }), 404, 'NOT_FOUND');
    const tested = await api('POST', `${s.base}/test`, { token: s.token, body: {} });
    assert.equal(tested.status, 200, tested.text);
    assertProblem(await api('POST', `${s.base}/history/${tested.body.id}/redeliver`, { token: s.token }), 409, 'CONFLICT');

    await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada' } });
    const entry = (await historyOf(s, 2)).find((e: any) => !e.test);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assertProblem(await api('POST', `${s.base}/history/${entry.id}/redeliver`, { token: viewer.token }), 403, 'FORBIDDEN');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('POST', `${s.base}/history/${entry.id}/redeliver`, { token: stranger.token }), 404, 'NOT_FOUND');

    const answers = [];
    for (let i = 0; i < 31; i++) answers.push((await api('POST', `${s.base}/history/${entry.id}/redeliver`, { token: s.token })).status);
    assert.equal(answers.filter((a) => a === 202).length, 30);
    const limited = await api('POST', `${s.base}/history/${entry.id}/redeliver`, { token: s.token });
    assertProblem(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });
});
