// The order's money invariants (docs/payments.md, "What is due"): the amount due is computed in one
// place, paying less than the total is `partially_paid`, a changed total closes the open
// checkout at its provider, a stale session counts only for what it asked, a provider report of
// another amount or currency is flagged and never taken as full payment, and cash on delivery
// collects what is still due.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, startTestService, type Api, type TestService } from './helpers.js';
import { startFakeChargily, type FakeChargily } from './fakes/chargily.js';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.js';
import { postWebhook, startFakeYalidine, webhookBatch, type FakeYalidine } from './fakes/yalidine.js';
import { freePort, paymentShop, type PaymentShop } from './payment-integration.js';

let svc: TestService;
let api: Api;
let chargily: FakeChargily;
let stripe: FakeStripe;
let yalidine: FakeYalidine;

const CARRIER_SECRET = 'yalidine-webhook-secret-money';

before(async () => {
  chargily = await startFakeChargily();
  stripe = await startFakeStripe();
  yalidine = await startFakeYalidine();
  svc = await startTestService({ PORT: String(await freePort()), SOUK_CHARGILY_URL: chargily.url, SOUK_STRIPE_URL: stripe.url, SOUK_YALIDINE_URL: yalidine.url });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await chargily.close();
  await stripe.close();
  await yalidine.close();
});

type Shop = PaymentShop;

const ADDRESS = { country: 'DZ', address: 'Cité 5 Juillet, bloc 3', communeId: '1630', communeName: 'Bordj El Kiffan', wilayaCode: '16' };

/** A store taking cod, Chargily and Stripe, with a Yalidine carrier integration. */
async function shop(): Promise<Shop> {
  const s = await paymentShop({ svc, api, chargily, stripe });
  const carrier = await api('PUT', `/v1/stores/${s.storeId}/integrations/carrier`, {
    token: s.token,
    body: { provider: 'yalidine', config: { apiId: 'yal-test-id', fromWilaya: 16 }, secrets: { apiToken: 'yal-test-token-0123456789abcdef' } },
  });
  assert.equal(carrier.status, 201, carrier.text);
  const hook = await api('PUT', `/v1/stores/${s.storeId}/integrations/carrier/webhook`, { token: s.token, body: { secret: CARRIER_SECRET } });
  assert.equal(hook.status, 200, hook.text);
  return s;
}

async function newOrder(s: Shop, price: number): Promise<{ id: string; total: number }> {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: { customerName: 'Amina Benali', customerPhone: '0555123456', shippingAddress: ADDRESS, items: [{ name: 'Tea', price, quantity: 1 }] },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const pay = (orderId: string) => `/v1/orders/${orderId}/payment`;
const URLS = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
const checkout = (s: Shop, orderId: string, method: string) => api('POST', `${pay(orderId)}/checkout`, { token: s.token, body: { method, ...URLS } });
const setItems = (s: Shop, orderId: string, price: number) =>
  api('PATCH', `/v1/stores/${s.storeId}/orders/${orderId}`, { token: s.token, body: { items: [{ name: 'Tea', price, quantity: 1 }] } });

async function status(s: Shop, orderId: string) {
  const res = await api('GET', `${pay(orderId)}/status`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const paymentRow = async (id: string) => (await svc.service.deps.orm.em.fork().getConnection().execute('select status, amount from payments where id = ?', [id]))[0];

describe('a changed total closes the open checkout', () => {
  test('Stripe: editing the items of an order with an open checkout expires the session at Stripe; a new checkout asks for the new total', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const first = await checkout(s, order.id, 'stripe');
    assert.equal(first.status, 201, first.text);
    assert.equal((await status(s, order.id)).paymentStatus, 'pending');
    const edited = await setItems(s, order.id, 5000);
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.total, 5000);
    assert.equal(edited.body.paymentStatus, 'unpaid', 'its only payment was canceled: nothing is open');
    await until('the session to expire at Stripe', () => stripe.sessions.get(first.body.providerRef)?.status === 'expired');
    assert.ok(stripe.requests.some((r) => r.path === `/v1/checkout/sessions/${first.body.providerRef}/expire`));
    assert.equal((await paymentRow(first.body.id)).status, 'canceled');
    assert.throws(() => stripe.pay(first.body.providerRef), /expired/, 'the customer can no longer pay the old amount');
    const second = await checkout(s, order.id, 'stripe');
    assert.equal(second.status, 201, second.text);
    assert.notEqual(second.body.id, first.body.id);
    assert.equal(second.body.amount, 5000);
  });

  test('Chargily: the open checkout is expired at Chargily (POST /api/v2/checkouts/{id}/expire)', async () => {
    const s = await shop();
    const order = await newOrder(s, 2500);
    const first = await checkout(s, order.id, 'chargily');
    assert.equal(first.status, 201, first.text);
    assert.equal((await setItems(s, order.id, 3000)).status, 200);
    await until('the checkout to expire at Chargily', () => chargily.checkouts.get(first.body.providerRef)?.status === 'expired');
    assert.deepEqual(chargily.expired, [first.body.providerRef]);
    assert.equal((await paymentRow(first.body.id)).status, 'canceled');
  });

  test('an open cash-on-delivery payment is re-priced to the new total (nothing to call)', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const cod = await checkout(s, order.id, 'cod');
    assert.equal(cod.status, 200, cod.text);
    const edited = await setItems(s, order.id, 1800);
    assert.equal(edited.body.paymentStatus, 'pending');
    const row = await paymentRow(cod.body.id);
    assert.deepEqual([row.status, Number(row.amount)], ['pending', 180000]);
  });
});

describe('paid less than the total', () => {
  test('the red-team sequence: 1,000 DZD order, checkout, items edited to 5,000, second checkout, the first session paid → partially paid; the rest is still due', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const first = await checkout(s, order.id, 'stripe');
    assert.equal(first.status, 201, first.text);
    // Stripe is down when the edit tries to close the first session, so the customer can still pay it.
    stripe.failNext.push({ status: 500 });
    assert.equal((await setItems(s, order.id, 5000)).status, 200);
    await until('the expire attempt', () => stripe.failNext.length === 0);
    const second = await checkout(s, order.id, 'stripe');
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.amount, 5000);

    const paid = await stripe.pay(first.body.providerRef);
    assert.equal(paid.delivery!.status, 200, paid.delivery!.body);
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'partially_paid', 'a 1,000 DZD session does not pay a 5,000 DZD order');
    assert.equal(st.payment.id, first.body.id);
    assert.equal(st.payment.amount, 1000);
    assert.equal(st.payment.status, 'paid');
    // The second session asked for an amount no longer due: canceled here and at Stripe.
    assert.equal((await paymentRow(second.body.id)).status, 'canceled');
    await until('the second session to expire', () => stripe.sessions.get(second.body.providerRef)?.status === 'expired');

    const rest = await checkout(s, order.id, 'stripe');
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amount, 4000, 'a new checkout asks for the remainder');

    const sent = await api('POST', `/v1/stores/${s.storeId}/integrations/carrier/send`, { token: s.token, body: { orderId: order.id } });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.codAmount, 4000, 'the courier collects what is still due');
    assert.equal(yalidine.parcelsOf(order.id)[0].price, 4000);

    // The courier remits the cash: a cod payment of 4,000 completes the order.
    const remitted = await postWebhook(
      `${svc.url}/v1/stores/${s.storeId}/integrations/carrier/webhook`,
      webhookBatch('parcel_payment_updated', [yalidine.paymentEvent(sent.body.tracking, 'payed')], CARRIER_SECRET),
    );
    assert.equal(remitted.status, 200, remitted.text);
    const done = await status(s, order.id);
    assert.equal(done.paymentStatus, 'paid');
    assert.deepEqual([done.payment.provider, done.payment.amount, done.payment.status], ['cod', 4000, 'paid']);
    assert.equal((await paymentRow(rest.body.id)).status, 'canceled', 'the open Stripe checkout for the rest is closed');
  });

  test('items that grow after payment make a paid order partially paid; a checkout for the rest is allowed (no longer 409)', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const first = await checkout(s, order.id, 'stripe');
    assert.equal((await stripe.pay(first.body.providerRef)).delivery!.status, 200);
    assert.equal((await status(s, order.id)).paymentStatus, 'paid');
    assertProblem(await checkout(s, order.id, 'stripe'), 409, 'CONFLICT');
    const edited = await setItems(s, order.id, 3000);
    assert.equal(edited.body.paymentStatus, 'partially_paid');
    const rest = await checkout(s, order.id, 'stripe');
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amount, 2000);
    assert.equal((await setItems(s, order.id, 1000)).body.paymentStatus, 'paid', 'back to what was paid');
  });
});

describe('a provider report of another amount or currency', () => {
  test('a signed checkout.session.completed with amount_total 1 on a 1,000 DZD payment is flagged and counts for 0.01 DZD', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const co = await checkout(s, order.id, 'stripe');
    const session = stripe.sessions.get(co.body.providerRef);
    const d = await stripe.emit(s.stripeKey, 'checkout.session.completed', { ...session, status: 'complete', payment_status: 'paid', amount_total: 1 });
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    const st = await status(s, order.id);
    assert.notEqual(st.paymentStatus, 'paid');
    assert.equal(st.paymentStatus, 'partially_paid');
    assert.equal(st.payment.status, 'paid');
    assert.deepEqual(st.payment.reported, { amount: 0.01, currency: 'DZD' });
    const rest = await checkout(s, order.id, 'stripe');
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amount, 999.99);
    // A refund can return only what came in.
    assertProblem(await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: 0.02 } }), 400, 'VALIDATION_FAILED');
  });

  test('another currency counts for nothing: the order is not paid', async () => {
    const s = await shop();
    const order = await newOrder(s, 1000);
    const co = await checkout(s, order.id, 'stripe');
    const session = stripe.sessions.get(co.body.providerRef);
    const d = await stripe.emit(s.stripeKey, 'checkout.session.completed', { ...session, status: 'complete', payment_status: 'paid', currency: 'eur' });
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'unpaid');
    assert.deepEqual(st.payment.reported, { amount: 1000, currency: 'EUR' });
    const gql = await api('POST', '/graphql', {
      token: s.token,
      body: { query: 'query($id: ID!) { orderPaymentStatus(orderId: $id) { paymentStatus payment { status reported { amount currency } } } }', variables: { id: order.id } },
    });
    assert.deepEqual(gql.body.data.orderPaymentStatus, { paymentStatus: 'unpaid', payment: { status: 'paid', reported: { amount: 1000, currency: 'EUR' } } });
  });

  test('Chargily: a paid event for another amount is flagged too', async () => {
    const s = await shop();
    const order = await newOrder(s, 2500);
    const co = await checkout(s, order.id, 'chargily');
    const c = chargily.checkouts.get(co.body.providerRef)!;
    c.amount = 100;
    assert.equal((await chargily.pay(c.id)).delivery!.status, 200);
    const st = await status(s, order.id);
    assert.equal(st.paymentStatus, 'partially_paid');
    assert.deepEqual(st.payment.reported, { amount: 100, currency: 'DZD' });
  });
});
