import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { assertProblem, client, memberWithRole, ownerWithStore, type Api, type TestService, startTestService, until } from './helpers.js';
import { startFakeChargily, type FakeChargily } from './fakes/chargily.js';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.js';
import { freePort, integrationStatus, paymentShop, type PaymentShop } from './payment-integration.js';
import { reconcilePayments } from '../src/domains/payments/payment.reconcile.js';
import { codRemitted } from '../src/domains/payments/payment.service.js';
import { systemContext } from '../src/core/context.js';
import { transaction } from '../src/core/tx.js';

let svc: TestService;
let api: Api;
let chargily: FakeChargily;
let stripe: FakeStripe;

before(async () => {
  chargily = await startFakeChargily();
  stripe = await startFakeStripe();
  svc = await startTestService({ PORT: String(await freePort()), SOUK_CHARGILY_URL: chargily.url, SOUK_STRIPE_URL: stripe.url });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await chargily.close();
  await stripe.close();
});

type Shop = PaymentShop;

const rand = () => randomBytes(6).toString('hex');

/** A store whose payments integration enables cod, Chargily and Stripe with keys the fakes know. */
const shop = (providers?: string[], defaultMethod?: string) => paymentShop({ svc, api, chargily, stripe }, providers, defaultMethod);

async function newOrder(s: { token: string; storeId: string }, price = 2500): Promise<{ id: string; paymentToken: string; total: number }> {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Amina', items: [{ name: 'Tea', price, quantity: 1 }] } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const pay = (orderId: string) => `/v1/orders/${orderId}/payment`;
const URLS = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };

async function checkout(s: Shop, orderId: string, method: string, headers: Record<string, string> = {}) {
  return api('POST', `${pay(orderId)}/checkout`, { token: s.token, body: { method, ...URLS }, headers });
}

async function status(s: { token: string }, orderId: string, refresh = false) {
  const res = await api('GET', `${pay(orderId)}/status${refresh ? '?refresh=1' : ''}`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** The orderUpdated events of one order, oldest first. */
async function orderUpdates(s: Shop, orderId: string): Promise<any[]> {
  const res = await api('GET', `/v1/stores/${s.storeId}/events?events=orderUpdated&limit=200`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.filter((e: any) => e.data.order.id === orderId);
}

/** A Stripe-paid order: checkout, then the fake pays and delivers the signed event. */
async function stripePaid(s: Shop, price = 100): Promise<{ order: { id: string; paymentToken: string }; payment: any }> {
  const order = await newOrder(s, price);
  const res = await checkout(s, order.id, 'stripe');
  assert.equal(res.status, 201, res.text);
  const d = await stripe.pay(res.body.providerRef);
  assert.equal(d.delivery!.status, 200, d.delivery!.body);
  return { order, payment: res.body };
}

describe('the order payment token', () => {
  test('comes only in the create response and works only on that order’s methods, select, checkout and status', async () => {
    const s = await shop();
    const order = await newOrder(s);
    const other = await newOrder(s);
    assert.match(order.paymentToken, /^opt_[A-Za-z0-9_-]{43}$/);
    const read = await api('GET', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token });
    assert.equal(read.body.paymentToken, undefined);
    const created = await api('GET', `/v1/stores/${s.storeId}/events?events=orderCreated&limit=200`, { token: s.token });
    const payload = created.body.data.find((e: any) => e.data.order.id === order.id);
    assert.ok(payload);
    assert.ok(!JSON.stringify(payload).includes(order.paymentToken), 'the token is in no event payload');
    const t = order.paymentToken;

    assert.equal((await api('GET', `${pay(order.id)}/methods`, { token: t })).status, 200);
    const sel = await api('POST', `${pay(order.id)}/select`, { token: t, body: { method: 'cod' } });
    assert.equal(sel.status, 200, sel.text);
    const co = await api('POST', `${pay(order.id)}/checkout`, { token: t, body: { method: 'chargily', ...URLS } });
    assert.equal(co.status, 201, co.text);
    assert.equal((await api('GET', `${pay(order.id)}/status`, { token: t })).status, 200);

    // Another order of the same store, the refund routes, and everything else.
    assertProblem(await api('GET', `${pay(other.id)}/methods`, { token: t }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `${pay(other.id)}/checkout`, { token: t, body: { method: 'cod' } }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${pay(other.id)}/status`, { token: t }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: t, body: { manual: true } }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: t }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', '/v1/stores', { token: t }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', '/v1/users/auth', { token: t }), 401, 'UNAUTHENTICATED');
    // An unknown payment token, and an unknown token of any other shape, stay 401.
    assertProblem(await api('GET', `${pay(order.id)}/methods`, { token: `opt_${rand()}` }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', `${pay(order.id)}/methods`, { token: `zzz_${rand()}` }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', `${pay(order.id)}/methods`), 401, 'UNAUTHENTICATED');
  });
});

describe('methods, select and authorization', () => {
  test('methods list every provider with availability from the integration; cod only without one', async () => {
    const bare = await ownerWithStore(api);
    const o1 = await newOrder(bare);
    const none = await api('GET', `${pay(o1.id)}/methods`, { token: bare.token });
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body, {
      data: [
        { method: 'cod', provider: 'cod', available: true },
        { method: 'chargily', provider: 'chargily', available: false },
        { method: 'stripe', provider: 'stripe', available: false },
      ],
      selected: null,
    });
    assertProblem(await api('POST', `${pay(o1.id)}/select`, { token: bare.token, body: { method: 'stripe' } }), 400, 'VALIDATION_FAILED');

    const s = await shop(['cod', 'stripe'], 'stripe');
    const o2 = await newOrder(s);
    const res = await api('GET', `${pay(o2.id)}/methods?storeId=${s.storeId}`, { token: s.token });
    assert.deepEqual(
      res.body.data.map((m: any) => [m.method, m.available]),
      [
        ['cod', true],
        ['chargily', false],
        ['stripe', true],
      ],
    );
    assert.equal(res.body.selected, 'stripe');
    // storeId, when given, must be the order's store.
    assertProblem(await api('GET', `${pay(o2.id)}/methods?storeId=${bare.storeId}`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${pay('ord_missing')}/methods`, { token: s.token }), 404, 'NOT_FOUND');
  });

  test('select: unknown method → 400, roles, and the order records method and paymentStatus with orderUpdated', async () => {
    const s = await shop();
    const order = await newOrder(s);
    const bad = await api('POST', `${pay(order.id)}/select`, { token: s.token, body: { method: 'bitcoin' } });
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.equal(bad.body.errors[0].path, 'method');

    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assertProblem(await api('POST', `${pay(order.id)}/select`, { token: viewer.token, body: { method: 'cod' } }), 403, 'FORBIDDEN');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('POST', `${pay(order.id)}/select`, { token: stranger.token, body: { method: 'cod' } }), 404, 'NOT_FOUND');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');

    const res = await api('POST', `${pay(order.id)}/select`, { token: editor.token, body: { method: 'cod' } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.id, /^pay_/);
    assert.deepEqual(
      { provider: res.body.provider, method: res.body.method, amount: res.body.amount, currency: res.body.currency, status: res.body.status, checkoutUrl: res.body.checkoutUrl },
      { provider: 'cod', method: 'cod', amount: 2500, currency: 'DZD', status: 'pending', checkoutUrl: null },
    );
    const updates = await orderUpdates(s, order.id);
    assert.equal(updates.length, 1);
    assert.equal(updates[0].data.order.paymentStatus, 'pending');
    assert.equal(updates[0].data.order.paymentMethod, 'cod');
    assert.equal(updates[0].data.previous_data.paymentStatus, 'unpaid');
    assert.equal(updates[0].data.previous_data.paymentMethod, null);

    // Selecting again keeps the same open payment; another method replaces it.
    const again = await api('POST', `${pay(order.id)}/select`, { token: s.token, body: { method: 'cod' } });
    assert.equal(again.body.id, res.body.id);
    const online = await api('POST', `${pay(order.id)}/select`, { token: s.token, body: { method: 'stripe' } });
    assert.notEqual(online.body.id, res.body.id);
    assert.equal(online.body.status, 'requires_action');
    assert.equal(online.body.checkoutUrl, null);
    const st = await status(s, order.id);
    assert.equal(st.payment.id, online.body.id);
    assert.equal(st.paymentStatus, 'pending');
  });
});

describe('checkout', () => {
  test('cod answers 200 without a url; Chargily and Stripe 201 with the provider checkout, in their wire shapes', async () => {
    const s = await shop();
    const o1 = await newOrder(s, 2500);
    const cod = await checkout(s, o1.id, 'cod');
    assert.equal(cod.status, 200, cod.text);
    assert.equal(cod.body.checkoutUrl, null);
    assert.equal(cod.body.status, 'pending');

    const o2 = await newOrder(s, 2500);
    const before = chargily.requests.length;
    const ch = await checkout(s, o2.id, 'chargily');
    assert.equal(ch.status, 201, ch.text);
    const sent = chargily.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers.authorization, `Bearer ${s.chargilyKey}`);
    assert.deepEqual(sent[0].body, {
      amount: 2500,
      currency: 'dzd',
      success_url: URLS.successUrl,
      failure_url: URLS.failureUrl,
      webhook_endpoint: `${svc.url}/v1/orders/${o2.id}/payment/webhook`,
      description: `Order ${o2.id}`,
      metadata: { orderId: o2.id, paymentId: ch.body.id, storeId: s.storeId },
    });
    const checkoutRow = chargily.checkouts.get(ch.body.providerRef)!;
    assert.equal(ch.body.checkoutUrl, checkoutRow.checkout_url);
    assert.equal(ch.body.status, 'requires_action');

    const o3 = await newOrder(s, 1999.5);
    const st = await checkout(s, o3.id, 'stripe');
    assert.equal(st.status, 201, st.text);
    const req = stripe.requests.at(-1)!;
    assert.equal(req.path, '/v1/checkout/sessions');
    assert.equal(req.headers['idempotency-key'], st.body.id);
    assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(req.form['line_items[0][price_data][unit_amount]'], '199950');
    assert.equal(req.form['line_items[0][price_data][currency]'], 'dzd');
    assert.equal(req.form['metadata[orderId]'], o3.id);
    assert.equal(req.form['metadata[paymentId]'], st.body.id);
    assert.equal(req.form.success_url, URLS.successUrl);
    assert.equal(req.form.cancel_url, URLS.failureUrl);
    assert.equal(st.body.checkoutUrl, stripe.sessions.get(st.body.providerRef).url);
    assert.equal(st.body.amount, 1999.5);

    // Chargily takes whole dinars only.
    const o4 = await newOrder(s, 1999.5);
    assertProblem(await checkout(s, o4.id, 'chargily'), 400, 'VALIDATION_FAILED');
  });

  test('an open checkout with the same method and amount is reused; a new amount makes a new one', async () => {
    const s = await shop();
    const order = await newOrder(s, 300);
    const first = await checkout(s, order.id, 'stripe');
    const count = stripe.sessions.size;
    const second = await checkout(s, order.id, 'stripe');
    assert.equal(second.status, 201);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.body.checkoutUrl, first.body.checkoutUrl);
    assert.equal(stripe.sessions.size, count);

    const patched = await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { items: [{ name: 'Tea', price: 450, quantity: 1 }] } });
    assert.equal(patched.status, 200, patched.text);
    const third = await checkout(s, order.id, 'stripe');
    assert.notEqual(third.body.id, first.body.id);
    assert.equal(third.body.amount, 450);
    assert.equal(stripe.sessions.size, count + 1);
  });

  test('total 0 → 400; rejected order → 409; paid order → 409; missing successUrl → 400', async () => {
    const s = await shop();
    const zero = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Zero' } });
    assertProblem(await checkout(s, zero.body.id, 'stripe'), 400, 'VALIDATION_FAILED');
    const rejected = await newOrder(s);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders/${rejected.id}/reject`, { token: s.token, body: { reason: 'fake' } })).status, 200);
    assertProblem(await checkout(s, rejected.id, 'stripe'), 409, 'CONFLICT');
    const { order } = await stripePaid(s);
    assertProblem(await checkout(s, order.id, 'stripe'), 409, 'CONFLICT');
    assertProblem(await api('POST', `${pay(order.id)}/select`, { token: s.token, body: { method: 'cod' } }), 409, 'CONFLICT');
    const fresh = await newOrder(s);
    const noUrl = await api('POST', `${pay(fresh.id)}/checkout`, { token: s.token, body: { method: 'stripe' } });
    assertProblem(noUrl, 400, 'VALIDATION_FAILED');
    assert.equal(noUrl.body.errors[0].path, 'successUrl');
  });

  test('20 concurrent checkouts of one order create one provider checkout, every run', async () => {
    const s = await shop();
    for (const method of ['stripe', 'chargily']) {
      const order = await newOrder(s, 700);
      const fake = method === 'stripe' ? stripe : chargily;
      const before = fake.requests.length;
      fake.delayMs = 150;
      const results = await Promise.all(Array.from({ length: 20 }, () => checkout(s, order.id, method))).finally(() => {
        fake.delayMs = 0;
      });
      for (const r of results) assert.equal(r.status, 201, r.text);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      assert.equal(new Set(results.map((r) => r.body.checkoutUrl)).size, 1);
      assert.ok(results[0].body.checkoutUrl);
      assert.equal(fake.requests.length - before, 1, `${method}: one provider call`);
    }
  });

  test('provider failures map to 502 (credentials mark the integration error), 429 with Retry-After', async () => {
    const s = await shop();
    const order = await newOrder(s);
    stripe.failNext.push({ status: 500 });
    assertProblem(await checkout(s, order.id, 'stripe'), 502, 'BAD_GATEWAY');
    stripe.failNext.push({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await checkout(s, order.id, 'stripe');
    assertProblem(limited, 429, 'RATE_LIMITED');
    assert.equal(limited.headers.get('retry-after'), '7');
    stripe.failNext.push({ status: 401, body: { error: { message: `Invalid API Key provided: ${s.stripeKey}` } } });
    const refused = await checkout(s, order.id, 'stripe');
    assertProblem(refused, 502, 'BAD_GATEWAY');
    assert.ok(!refused.text.includes(s.stripeKey), 'no secret in the answer');
    const marked = await integrationStatus(svc, s.storeId);
    assert.equal(marked.status, 'error');
    assert.match(marked.last_error!, /refused the store's credentials/);
    assert.ok(!marked.last_error!.includes(s.stripeKey));
    // The same payment is retried with the same Idempotency-Key once the provider answers again.
    const ok = await checkout(s, order.id, 'stripe');
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await integrationStatus(svc, s.storeId)).status, 'active');
    const keys = stripe.requests.filter((r) => r.form['metadata[orderId]'] === order.id).map((r) => r.headers['idempotency-key']);
    assert.equal(new Set(keys).size, 1);
    assert.equal(keys[0], ok.body.id);
  });
});

describe('Idempotency-Key', () => {
  test('checkout: a replay gets the stored answer with Idempotent-Replayed: true; another body → 409', async () => {
    const s = await shop();
    const order = await newOrder(s);
    const key = `k-${rand()}`;
    const first = await checkout(s, order.id, 'stripe', { 'idempotency-key': key });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const sessions = stripe.sessions.size;
    // The payment moves on; the replay still answers what the first request answered.
    await stripe.pay(first.body.providerRef);
    const replay = await checkout(s, order.id, 'stripe', { 'idempotency-key': key });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, first.body);
    assert.equal(stripe.sessions.size, sessions);
    assertProblem(await checkout(s, order.id, 'cod', { 'idempotency-key': key }), 409, 'CONFLICT');
    // The key is scoped to the order: another order may use it.
    const other = await newOrder(s);
    const elsewhere = await checkout(s, other.id, 'stripe', { 'idempotency-key': key });
    assert.equal(elsewhere.status, 201);
    assert.equal(elsewhere.headers.get('idempotent-replayed'), null);
    assertProblem(await checkout(s, other.id, 'stripe', { 'idempotency-key': ' ' }), 400, 'VALIDATION_FAILED');
  });

  test('refund: a replay returns the same refund and refunds nothing more; another body → 409', async () => {
    const s = await shop();
    const { order } = await stripePaid(s, 100);
    const key = `r-${rand()}`;
    const first = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 10 }, headers: { 'idempotency-key': key } });
    assert.equal(first.status, 201, first.text);
    const again = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 10 }, headers: { 'idempotency-key': key } });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 20 }, headers: { 'idempotency-key': key } }), 409, 'CONFLICT');
    const st = await status(s, order.id);
    assert.equal(st.refunds.length, 1);
    assert.equal(st.paymentStatus, 'partially_refunded');
  });
});

describe('provider webhooks', () => {
  test('the Stripe fake signs exactly like Stripe (the official library verifies it, and signs what we verify)', async () => {
    const s = await shop();
    const lib = new Stripe('sk_test_unused');
    const order = await newOrder(s);
    const co = await checkout(s, order.id, 'stripe');
    const d = await stripe.pay(co.body.providerRef);
    const event = lib.webhooks.constructEvent(d.raw, d.header, s.whsec);
    assert.equal(event.type, 'checkout.session.completed');
    assert.throws(() => lib.webhooks.constructEvent(d.raw, d.header, `${s.whsec}x`));
    // And a header made by the library itself is accepted by Souk (a new event id).
    const raw = JSON.stringify({ ...d.event, id: `evt_${rand()}` });
    const header = lib.webhooks.generateTestHeaderString({ payload: raw, secret: s.whsec });
    const res = await stripe.post(`${svc.url}/v1/stores/${s.storeId}/payment/webhook`, raw, header);
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(JSON.parse(res.body), { received: 1, duplicates: 0 });
  });

  test('Stripe: paid updates the payment and the order (orderUpdated with previous_data); replays, stale and bad signatures change nothing', async () => {
    const s = await shop();
    const order = await newOrder(s, 120);
    const co = await checkout(s, order.id, 'stripe');
    const d = await stripe.pay(co.body.providerRef);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    assert.deepEqual(JSON.parse(d.delivery!.body), { received: 1, duplicates: 0 });
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'paid');
    assert.equal(st.payment.status, 'paid');
    assert.ok(st.payment.paidAt);
    const updates = await orderUpdates(s, order.id);
    const last = updates.at(-1);
    assert.equal(last.data.order.paymentStatus, 'paid');
    assert.equal(last.data.previous_data.paymentStatus, 'pending');

    const url = `${svc.url}/v1/stores/${s.storeId}/payment/webhook`;
    const replay = await stripe.post(url, d.raw, d.header);
    assert.equal(replay.status, 200);
    assert.deepEqual(JSON.parse(replay.body), { received: 1, duplicates: 1 });

    // A verified "expired" about the paid session, replayed under a new id, changes nothing either.
    const expired = JSON.stringify({ ...d.event, id: `evt_${rand()}`, type: 'checkout.session.expired' });
    assert.equal((await stripe.post(url, expired, stripe.signHeader(expired, s.whsec))).status, 200);

    const stale = JSON.stringify({ ...d.event, id: `evt_${rand()}`, type: 'checkout.session.async_payment_failed' });
    const staleRes = await stripe.post(url, stale, stripe.signHeader(stale, s.whsec, Math.floor(Date.now() / 1000) - 301));
    const badSig = await stripe.post(url, stale, stripe.signHeader(stale, 'whsec_wrong'));
    const tampered = await stripe.post(url, stale.replace('"livemode":false', '"livemode":true'), stripe.signHeader(stale, s.whsec));
    const noHeader = await api('POST', `/v1/stores/${s.storeId}/payment/webhook`, { raw: stale });
    const unknownStore = await stripe.post(`${svc.url}/v1/stores/st_missing/payment/webhook`, stale, stripe.signHeader(stale, s.whsec));
    for (const r of [staleRes, badSig, tampered, unknownStore]) {
      assert.equal(r.status, 401);
      assert.equal(r.body, staleRes.body, 'identical body');
    }
    assertProblem(noHeader, 401, 'UNAUTHENTICATED');
    assert.equal(noHeader.text, staleRes.body);
    const after = await status(s, order.id);
    assert.deepEqual(after, st);
    assert.equal((await orderUpdates(s, order.id)).length, updates.length);
  });

  test('Chargily: signed events at the checkout’s own endpoint; replays and bad signatures change nothing', async () => {
    const s = await shop();
    const order = await newOrder(s, 2500);
    const co = await checkout(s, order.id, 'chargily');
    const d = await chargily.pay(co.body.providerRef);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    assert.deepEqual(JSON.parse(d.delivery!.body), { received: 1, duplicates: 0 });
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'paid');
    assert.equal(st.payment.status, 'paid');
    const updates = (await orderUpdates(s, order.id)).length;

    const url = `${svc.url}/v1/orders/${order.id}/payment/webhook`;
    const replay = await chargily.post(url, d.raw, d.signature);
    assert.deepEqual(JSON.parse(replay.body), { received: 1, duplicates: 1 });

    const failed = JSON.stringify({ ...d.event, id: `01evt${rand()}`, type: 'checkout.failed', data: { ...d.event.data, status: 'failed' } });
    const wrongKey = await chargily.post(url, failed, chargily.sign(failed, 'test_sk_wrong'));
    const reused = await chargily.post(url, failed, d.signature);
    const unknownOrder = await chargily.post(`${svc.url}/v1/orders/ord_missing/payment/webhook`, failed, chargily.sign(failed, s.chargilyKey));
    for (const r of [wrongKey, reused, unknownOrder]) {
      assert.equal(r.status, 401);
      assert.equal(r.body, wrongKey.body);
    }
    // Correctly signed but late: a failure after the payment succeeded changes nothing.
    const late = await chargily.post(url, failed, chargily.sign(failed, s.chargilyKey));
    assert.deepEqual(JSON.parse(late.body), { received: 1, duplicates: 0 });
    assert.deepEqual(await status(s, order.id), st);
    assert.equal((await orderUpdates(s, order.id)).length, updates);
  });

  test('a failed Chargily checkout goes back to unpaid; a new checkout then starts over', async () => {
    const s = await shop();
    const order = await newOrder(s, 900);
    const co = await checkout(s, order.id, 'chargily');
    await chargily.fail(co.body.providerRef);
    const st = await status(s, order.id);
    assert.equal(st.payment.status, 'failed');
    assert.equal(st.paymentStatus, 'unpaid');
    const again = await checkout(s, order.id, 'chargily');
    assert.notEqual(again.body.id, co.body.id);
  });
});

describe('lost webhooks', () => {
  test('GET /status?refresh=1 pulls the outcome from the provider', async () => {
    const s = await shop();
    for (const method of ['stripe', 'chargily']) {
      const order = await newOrder(s, 800);
      const co = await checkout(s, order.id, method);
      if (method === 'stripe') await stripe.pay(co.body.providerRef, { deliver: false });
      else await chargily.pay(co.body.providerRef, { deliver: false });
      assert.equal((await status(s, order.id)).paymentStatus, 'pending');
      const healed = await status({ token: order.paymentToken }, order.id, true);
      assert.equal(healed.paymentStatus, 'paid', method);
      assert.equal(healed.payment.status, 'paid');
      const last = (await orderUpdates(s, order.id)).at(-1);
      assert.equal(last.data.order.paymentStatus, 'paid');
    }
  });

  test('the periodic reconcile heals open payments nobody asks about', async () => {
    const s = await shop();
    const paid = await newOrder(s, 500);
    const co = await checkout(s, paid.id, 'stripe');
    await stripe.pay(co.body.providerRef, { deliver: false });
    const expired = await newOrder(s, 600);
    const co2 = await checkout(s, expired.id, 'stripe');
    await stripe.expire(co2.body.providerRef, { deliver: false });
    const open = await newOrder(s, 700);
    await checkout(s, open.id, 'stripe');
    const result = await reconcilePayments(svc.service.deps, { quietMs: 0 });
    assert.ok(result.changed >= 2, JSON.stringify(result));
    assert.equal((await status(s, paid.id)).paymentStatus, 'paid');
    const e = await status(s, expired.id);
    assert.equal(e.payment.status, 'expired');
    assert.equal(e.paymentStatus, 'unpaid');
    assert.equal((await status(s, open.id)).payment.status, 'requires_action');
  });
});

describe('refunds', () => {
  test('Stripe refunds: partial, then the rest; never more than paid; roles', async () => {
    const s = await shop();
    const { order, payment } = await stripePaid(s, 100);
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: editor.token, body: { amount: 10 } }), 403, 'FORBIDDEN');

    const r1 = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 30.25, reason: 'damaged' } });
    assert.equal(r1.status, 201, r1.text);
    assert.match(r1.body.id, /^rfd_/);
    assert.deepEqual(
      { paymentId: r1.body.paymentId, amount: r1.body.amount, reason: r1.body.reason, manual: r1.body.manual, status: r1.body.status },
      { paymentId: payment.id, amount: 30.25, reason: 'damaged', manual: false, status: 'succeeded' },
    );
    const sent = stripe.requests.at(-1)!;
    assert.equal(sent.path, '/v1/refunds');
    assert.equal(sent.form.amount, '3025');
    assert.equal(sent.headers['idempotency-key'], r1.body.id);
    assert.equal((await status(s, order.id)).paymentStatus, 'partially_refunded');

    const over = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 69.76 } });
    assertProblem(over, 400, 'VALIDATION_FAILED');
    assert.equal(over.body.errors[0].path, 'amount');
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 1.001 } }), 400, 'VALIDATION_FAILED');

    const rest = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: {} });
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amount, 69.75);
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 0.01 } }), 400, 'VALIDATION_FAILED');
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'refunded');
    assert.deepEqual(st.refunds.map((r: any) => r.id), [rest.body.id, r1.body.id]);
    const last = (await orderUpdates(s, order.id)).at(-1);
    assert.equal(last.data.order.paymentStatus, 'refunded');
    assert.equal(last.data.previous_data.paymentStatus, 'partially_refunded');

    const one = await api('GET', `${pay(order.id)}/refund/${r1.body.id}/status`, { token: s.token });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, r1.body);
    assertProblem(await api('GET', `${pay(order.id)}/refund/rfd_missing/status`, { token: s.token }), 404, 'NOT_FOUND');

    // An order with nothing paid has nothing to refund.
    const unpaid = await newOrder(s);
    assertProblem(await api('POST', `${pay(unpaid.id)}/refund`, { token: s.token, body: { manual: true } }), 409, 'CONFLICT');
  });

  test('a provider without a refund API needs manual: true, else 409', async () => {
    const s = await shop();
    const order = await newOrder(s, 2500);
    const co = await checkout(s, order.id, 'chargily');
    await chargily.pay(co.body.providerRef);
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 500 } }), 409, 'CONFLICT');
    const manual = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 500, manual: true, reason: 'cash back' } });
    assert.equal(manual.status, 201, manual.text);
    assert.equal(manual.body.manual, true);
    assert.equal(manual.body.status, 'succeeded');
    assert.equal((await status(s, order.id)).paymentStatus, 'partially_refunded');
  });

  test('a pending Stripe refund settles through its webhook', async () => {
    const s = await shop();
    const { order } = await stripePaid(s, 100);
    stripe.refundStatus = 'pending';
    const r = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 100 } }).finally(() => {
      stripe.refundStatus = 'succeeded';
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'pending');
    assert.equal((await status(s, order.id)).paymentStatus, 'paid');
    const remote = [...stripe.refunds.values()].find((x) => x.metadata.refundId === r.body.id);
    remote.status = 'succeeded';
    const d = await stripe.emit(s.stripeKey, 'refund.updated', remote);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    const one = await api('GET', `${pay(order.id)}/refund/${r.body.id}/status`, { token: s.token });
    assert.equal(one.body.status, 'succeeded');
    assert.equal((await status(s, order.id)).paymentStatus, 'refunded');
  });

  test('20 concurrent refunds never exceed what was paid, every run', async () => {
    const s = await shop();
    for (const kind of ['stripe', 'cod']) {
      let orderId: string;
      if (kind === 'stripe') {
        orderId = (await stripePaid(s, 100)).order.id;
      } else {
        orderId = (await newOrder(s, 100)).id;
        await checkout(s, orderId, 'cod');
        await transaction(systemContext(svc.service.deps), (tx) => codRemitted(tx, orderId));
        assert.equal((await status(s, orderId)).paymentStatus, 'paid');
      }
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api('POST', `${pay(orderId)}/refund`, { token: s.token, body: { amount: 10 + (i % 3), manual: kind === 'cod' } })),
      );
      const ok = results.filter((r) => r.status === 201);
      for (const r of results) if (r.status !== 201) assertProblem(r, 400, 'VALIDATION_FAILED');
      const refunded = ok.reduce((a, r) => a + r.body.amount * 100, 0);
      assert.ok(refunded <= 100 * 100, `${kind}: refunded ${refunded / 100} of 100`);
      // Served one at a time, the refunds stop only when what is left is below the next amount asked.
      assert.ok(refunded > (100 - 12) * 100, `${kind}: only ${refunded / 100} of 100 refunded`);
      const st = await status(s, orderId);
      assert.equal(st.refunds.filter((r: any) => r.status === 'succeeded').reduce((a: number, r: any) => a + r.amount * 100, 0), refunded);
      if (kind === 'stripe') {
        const remote = [...stripe.refunds.values()].filter((r) => ok.some((o) => o.body.id === r.metadata.refundId));
        assert.equal(remote.reduce((a, r) => a + r.amount, 0), refunded);
      }
    }
  });
});

describe('cash on delivery', () => {
  test('the carrier’s cash remittance makes the cod payment paid (orderUpdated)', async () => {
    const s = await shop();
    const order = await newOrder(s, 1500);
    const co = await checkout(s, order.id, 'cod');
    await transaction(systemContext(svc.service.deps), (tx) => codRemitted(tx, order.id));
    const st = await status(s, order.id);
    assert.equal(st.payment.id, co.body.id);
    assert.equal(st.payment.status, 'paid');
    assert.equal(st.paymentStatus, 'paid');
    const last = (await orderUpdates(s, order.id)).at(-1);
    assert.equal(last.data.order.paymentStatus, 'paid');
    assert.equal(last.data.previous_data.paymentStatus, 'pending');
  });
});

/** Resolves once the fake Stripe has received a request on each of `paths` with the store's key, counted from `from`. */
function atProvider(s: Shop, from: number, paths: string[]): Promise<true> {
  return until(`the provider to receive ${paths.join(' and ')}`, () =>
    paths.every((path) => stripe.requests.slice(from).some((r) => r.path === path && r.headers.authorization === `Bearer ${s.stripeKey}`)) || null,
  );
}

describe('a store deleted while its payments talk to the provider', () => {
  test('checkouts and refunds in flight answer 404 or 409, never a 5xx; the delete answers 204', async () => {
    const rounds = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const s = await shop();
        const { order } = await stripePaid(s, 100);
        const second = await newOrder(s, 300);
        return { s, order, second };
      }),
    );
    stripe.delayMs = 400;
    try {
      // Each round: a refund and a checkout wait on the provider while the store is deleted.
      const answers = await Promise.all(
        rounds.map(async ({ s, order, second }) => {
          const from = stripe.requests.length;
          const refund = api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 10 } });
          const started = checkout(s, second.id, 'stripe');
          await atProvider(s, from, ['/v1/refunds', '/v1/checkout/sessions']);
          const deleted = await api('DELETE', `/v1/stores/${s.storeId}`, { token: s.token });
          return { refund: await refund, checkout: await started, deleted };
        }),
      );
      for (const a of answers) {
        assert.equal(a.deleted.status, 204, a.deleted.text);
        for (const res of [a.refund, a.checkout]) assert.ok([200, 201, 404, 409].includes(res.status), `${res.status} ${res.text}`);
      }
    } finally {
      stripe.delayMs = 0;
    }
  });

  test('a provider refusal that comes back after the store is gone answers 404, not the refusal', async () => {
    const s = await shop();
    const { order } = await stripePaid(s, 100);
    const second = await newOrder(s, 300);
    stripe.delayMs = 300;
    stripe.failNext.push({ status: 400, body: { error: { type: 'invalid_request_error', message: 'refused' } } }, { status: 400, body: { error: { type: 'invalid_request_error', message: 'refused' } } });
    try {
      const from = stripe.requests.length;
      const refund = api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 10 } });
      const started = checkout(s, second.id, 'stripe');
      await atProvider(s, from, ['/v1/refunds', '/v1/checkout/sessions']);
      assert.equal((await api('DELETE', `/v1/stores/${s.storeId}`, { token: s.token })).status, 204);
      assertProblem(await refund, 404, 'NOT_FOUND');
      assertProblem(await started, 404, 'NOT_FOUND');
    } finally {
      stripe.delayMs = 0;
      stripe.failNext.length = 0;
    }
  });
});
