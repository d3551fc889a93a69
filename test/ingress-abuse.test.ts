import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startFakeChargily, type FakeChargily } from './fakes/chargily.js';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.js';
import { postWebhook, startFakeYalidine, webhookBatch, type FakeYalidine } from './fakes/yalidine.js';
import { shopifyOrder, shopifyProduct, shopifyWebhook, startFakeShopify, type FakeShopify } from './fakes/shopify.js';
import { freePort, paymentShop, type PaymentShop } from './payment-integration.js';
import { signedAssetPath } from '../src/domains/ai/asset-urls.js';
import { userAgent } from './user-agent.js';
import { assertFeeefProblem, feeefStore } from './feeef-helpers.js';

/**
 * Provider ingress and REST bodies under abuse: what a signed provider payload or a client body may
 * carry that PostgreSQL or the schema cannot take must end in a 2xx or a 4xx, never a 5xx.
 */

let svc: TestService;
let api: Api;
let chargily: FakeChargily;
let stripe: FakeStripe;
let yalidine: FakeYalidine;
let shopify: FakeShopify;

const YALIDINE_SECRET = 'yalidine-webhook-secret-abuse-1';

before(async () => {
  [chargily, stripe, yalidine, shopify] = await Promise.all([startFakeChargily(), startFakeStripe(), startFakeYalidine(), startFakeShopify()]);
  svc = await startTestService({
    PORT: String(await freePort()),
    SOUK_CHARGILY_URL: chargily.url,
    SOUK_STRIPE_URL: stripe.url,
    SOUK_YALIDINE_URL: yalidine.url,
    SOUK_SHOPIFY_ADMIN_URL_TEMPLATE: shopify.template,
    SOUK_SHOPIFY_CLIENT_ID: shopify.clientId,
    SOUK_SHOPIFY_CLIENT_SECRET: shopify.clientSecret,
    SOUK_RETURN_URL_ORIGINS: 'https://merchant.example',
    // Long enough that no refresh of a test falls outside the interval, however slow the machine.
    SOUK_PAYMENT_REFRESH_INTERVAL_MS: '600000',
  });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await Promise.all([chargily.close(), stripe.close(), yalidine.close(), shopify.close()]);
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
const em = () => svc.service.deps.orm.em.fork();
/** Requests each check sends, for the report on abuse checks. */
const sent = { count: 0 };
const URLS = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
const pay = (orderId: string) => `/v1/orders/${orderId}/payment`;

/** U+0000 and lone surrogates: valid JSON escapes that PostgreSQL text and jsonb refuse. */
const NUL = 'a\u0000b';
const HIGH = 'c\ud800d';
const LOW = 'e\udc00';

async function newOrder(s: { token: string; storeId: string }, price = 2500) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Amina', customerPhone: '0555123456', items: [{ name: 'Tea', price, quantity: 1 }] } });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; paymentToken: string };
}

const shop = () => paymentShop({ svc, api, chargily, stripe });

async function stripeCheckout(s: PaymentShop) {
  const order = await newOrder(s);
  const res = await api('POST', `${pay(order.id)}/checkout`, { token: s.token, body: { method: 'stripe', ...URLS } });
  assert.equal(res.status, 201, res.text);
  return { order, payment: res.body };
}

async function chargilyCheckout(s: PaymentShop) {
  const order = await newOrder(s);
  const res = await api('POST', `${pay(order.id)}/checkout`, { token: s.token, body: { method: 'chargily', ...URLS } });
  assert.equal(res.status, 201, res.text);
  return { order, payment: res.body };
}

const stripeHook = (storeId: string) => `${svc.url}/v1/stores/${storeId}/payment/webhook`;
const chargilyHook = (orderId: string) => `${svc.url}/v1/orders/${orderId}/payment/webhook`;

async function postStripe(s: PaymentShop, event: unknown) {
  const raw = JSON.stringify(event);
  sent.count++;
  return stripe.post(stripeHook(s.storeId), raw, stripe.signHeader(raw, s.whsec));
}
async function postChargily(s: PaymentShop, orderId: string, event: unknown) {
  const raw = JSON.stringify(event);
  sent.count++;
  return chargily.post(chargilyHook(orderId), raw, chargily.sign(raw, s.chargilyKey));
}

const paymentOf = async (s: PaymentShop, orderId: string) => (await api('GET', `${pay(orderId)}/status`, { token: s.token })).body.payment;

// --- Yalidine -----------------------------------------------------------------------------------

async function carrierStore(): Promise<Owner> {
  const s = await ownerWithStore(api);
  const res = await api('PUT', `/v1/stores/${s.storeId}/integrations/carrier`, {
    token: s.token,
    body: { provider: 'yalidine', config: { apiId: 'yal-test-id', fromWilaya: 16 }, secrets: { apiToken: 'yal-test-token-0123456789abcdef' } },
  });
  assert.equal(res.status, 201, res.text);
  const hook = await api('PUT', `/v1/stores/${s.storeId}/integrations/carrier/webhook`, { token: s.token, body: { secret: YALIDINE_SECRET } });
  assert.equal(hook.status, 200, hook.text);
  return s;
}

const ADDRESS = { country: 'DZ', address: 'Cité 5 Juillet, bloc 3', communeId: '1630', communeName: 'Bordj El Kiffan', wilayaCode: '16' };

async function shipped(s: Owner) {
  const order = await newOrder(s);
  await em().execute('update orders set shipping_address = ?::jsonb where id = ?', [JSON.stringify(ADDRESS), order.id]);
  const res = await api('POST', `/v1/stores/${s.storeId}/integrations/carrier/send`, { token: s.token, body: { orderId: order.id } });
  assert.equal(res.status, 201, res.text);
  return { order, parcel: res.body };
}

const carrierHook = (storeId: string) => `${svc.url}/v1/stores/${storeId}/integrations/carrier/webhook`;
const deliverYalidine = (s: Owner, type: string, events: any[]) => {
  sent.count++;
  return postWebhook(carrierHook(s.storeId), webhookBatch(type, events, YALIDINE_SECRET));
};
const parcel = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/integrations/carrier/parcels/${id}`, { token: s.token })).body;

// --- Shopify ------------------------------------------------------------------------------------

let shops = 0;
async function connectedStore(): Promise<Owner & { shop: string; connectorId: string }> {
  const s = await ownerWithStore(api);
  const domain = `abuse-${Date.now().toString(36)}-${shops++}.myshopify.com`;
  shopify.shop(domain);
  // The install starts and ends in the merchant's browser.
  const ua = userAgent(svc.url);
  const res = await ua.fetch(`${svc.url}/v1/stores/${s.storeId}/integrations/connectors/platform/install-url?shop=${domain}&returnUrl=${encodeURIComponent('https://merchant.example/c')}`, {
    headers: { authorization: `Bearer ${s.token}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { url: string; connectorId: string };
  const page = await fetch(body.url, { redirect: 'manual' });
  const callback = await ua.fetch(page.headers.get('location')!);
  assert.equal(callback.status, 302, await callback.text());
  return { ...s, shop: domain, connectorId: body.connectorId };
}

async function postShopify(s: { storeId: string; shop: string; connectorId: string }, topic: string, payload: unknown, eventId?: string) {
  const w = shopifyWebhook(topic, payload, { shop: s.shop, secret: shopify.clientSecret, eventId });
  sent.count++;
  const res = await fetch(`${svc.url}/v1/integrations/connectors/platform/webhook/${s.storeId}/${s.connectorId}`, { method: 'POST', headers: w.headers, body: w.body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

const linked = async (connectorId: string, resource: string, remoteId: string) =>
  (await em().execute('select local_id from connector_links where connector_id = ? and resource = ? and remote_id = ?', [connectorId, resource, remoteId]))[0]?.local_id as string | undefined;

describe('text PostgreSQL cannot store, in a signed provider event', () => {
  test('Stripe: U+0000 or a lone surrogate in id or type is cleaned, recorded once, answered 200', async () => {
    const s = await shop();
    const before = sent.count;
    for (const [id, type] of [
      [`evt_${NUL}`, 'checkout.session.completed'],
      [`evt_${HIGH}`, `checkout.${LOW}`],
      [`evt_${LOW}x`, `x${NUL}`],
    ]) {
      const event = { id, object: 'event', type, data: { object: { id: `cs_${NUL}`, object: 'checkout.session', metadata: { orderId: NUL } } } };
      const first = await postStripe(s, event);
      assert.equal(first.status, 200, first.body);
      assert.deepEqual(JSON.parse(first.body), { received: 1, duplicates: 0 });
      const again = await postStripe(s, event);
      assert.equal(again.status, 200, again.body);
      assert.deepEqual(JSON.parse(again.body), { received: 1, duplicates: 1 }, 'the cleaned event was recorded: a redelivery is a duplicate');
    }
    // The clean events of the same store still apply.
    const { order, payment } = await stripeCheckout(s);
    const d = await stripe.pay(payment.providerRef);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    assert.equal((await paymentOf(s, order.id)).status, 'paid');
    console.log(`# stripe poisoned events: ${sent.count - before} requests`);
  });

  test('Chargily: U+0000 or a lone surrogate in id, type or the checkout is cleaned and answered 200', async () => {
    const s = await shop();
    const { order, payment } = await chargilyCheckout(s);
    const before = sent.count;
    for (const [id, type] of [
      [`01evt${NUL}`, 'checkout.paid'],
      [`01evt${HIGH}`, `checkout.${LOW}`],
    ]) {
      const res = await postChargily(s, order.id, { id, entity: 'event', type, data: { id: `${payment.providerRef}${NUL}`, entity: 'checkout', status: `paid${HIGH}`, metadata: { orderId: LOW } } });
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(JSON.parse(res.body), { received: 1, duplicates: 0 });
    }
    // A real payment of that checkout still lands.
    const d = await chargily.pay(payment.providerRef);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    assert.equal((await paymentOf(s, order.id)).status, 'paid');
    console.log(`# chargily poisoned events: ${sent.count - before} requests`);
  });

  test('Yalidine: one poisoned event does not block its batch; the others apply, 200', async () => {
    const s = await carrierStore();
    const a = await shipped(s);
    const b = await shipped(s);
    const before = sent.count;
    const t0 = Date.now() - 60_000;
    const good = yalidine.advance(a.parcel.tracking, 'Expédié', new Date(t0));
    const shippedB = yalidine.advance(b.parcel.tracking, 'Expédié', new Date(t0 + 1000));
    const badStatus = { ...shippedB, data: { ...shippedB.data, status: `Exp${HIGH}édié${NUL}` } };
    const badId = { ...yalidine.advance(b.parcel.tracking, 'Centre', new Date(t0 + 2000)), event_id: `evt_${NUL}${LOW}` };
    const res = await deliverYalidine(s, 'parcel_status_updated', [badId, good, badStatus]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: 3, duplicates: 0 });
    assert.equal((await parcel(s, a.parcel.id)).status, 'in_transit', 'the clean event of the batch applied');
    const pb = await parcel(s, b.parcel.id);
    assert.ok(!JSON.stringify(pb).includes('\u0000'));
    const replay = await deliverYalidine(s, 'parcel_status_updated', [badId, good, badStatus]);
    assert.deepEqual(replay.body, { received: 3, duplicates: 3 });
    console.log(`# yalidine poisoned batch: ${sent.count - before} requests`);
  });

  test('Shopify: U+0000 or a lone surrogate in product titles and order names is cleaned, the record written, 200', async () => {
    const s = await connectedStore();
    const before = sent.count;
    const product = shopifyProduct({ title: `Argan${NUL} Oil${HIGH}`, price: '1500.00' });
    const p = await postShopify(s, 'products/create', product);
    assert.equal(p.status, 200, p.text);
    const productId = await linked(s.connectorId, 'product', product.id);
    assert.ok(productId);
    const read = await api('GET', `/v1/stores/${s.storeId}/products/${productId}`, { token: s.token });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.name, 'Argana\ufffdb Oilc\ufffdd');

    const order = shopifyOrder({ lines: [{ title: `Tea${LOW}`, quantity: 1, price: '10.00' }] });
    order.customer.first_name = `Ka${NUL}rim`;
    order.shipping_address.name = `Karim${HIGH}`;
    order.name = `#1${NUL}`;
    const o = await postShopify(s, 'orders/create', order);
    assert.equal(o.status, 200, o.text);
    assert.ok(await linked(s.connectorId, 'order', order.id));
    console.log(`# shopify poisoned events: ${sent.count - before} requests`);
  });
});

describe('a verified event that can never apply', () => {
  test('is recorded as rejected and answered 200 (no redelivery loop); a date PostgreSQL cannot hold is no date', async () => {
    const before = sent.count;
    const s = await carrierStore();
    const a = await shipped(s);
    const b = await shipped(s);
    const good = yalidine.advance(a.parcel.tracking, 'Expédié', new Date(Date.now() - 60_000));
    const odd = { ...yalidine.advance(b.parcel.tracking, 'Expédié'), occurred_at: '0000-01-01 00:00:00' };
    const res = await deliverYalidine(s, 'parcel_status_updated', [odd, good]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: 2, duplicates: 0 });
    assert.equal((await parcel(s, a.parcel.id)).status, 'in_transit');
    assert.equal((await parcel(s, b.parcel.id)).status, 'in_transit', 'news without a usable date applies as it comes');

    // Shopify: a product its own rules refuse (a price over the limit).
    const k = await connectedStore();
    const product = shopifyProduct({ title: 'Too dear', price: '999999999999999.99' });
    const p = await postShopify(k, 'products/create', product);
    assert.equal(p.status, 200, p.text);
    assert.deepEqual(p.body, { received: 1, duplicates: 0 });
    assert.equal(await linked(k.connectorId, 'product', product.id), undefined);
    const [row] = await em().execute('select rejected from inbound_events where connector_id = ?', [k.connectorId]);
    assert.match(row.rejected, /^VALIDATION_FAILED/);
    console.log(`# events that can never apply: ${sent.count - before} requests`);
  });
});

describe('ingress de-duplication is per store and provider', () => {
  test('two stores receiving the same provider event id both apply it (Yalidine, Stripe, Chargily, Shopify)', async () => {
    const before = sent.count;
    // Yalidine
    const [y1, y2] = await Promise.all([carrierStore(), carrierStore()]);
    const [p1, p2] = await Promise.all([shipped(y1), shipped(y2)]);
    const at = new Date(Date.now() - 30_000);
    const e1 = yalidine.advance(p1.parcel.tracking, 'Expédié', at);
    const e2 = { ...yalidine.advance(p2.parcel.tracking, 'Expédié', at), event_id: e1.event_id };
    assert.deepEqual((await deliverYalidine(y1, 'parcel_status_updated', [e1])).body, { received: 1, duplicates: 0 });
    assert.deepEqual((await deliverYalidine(y2, 'parcel_status_updated', [e2])).body, { received: 1, duplicates: 0 });
    assert.equal((await parcel(y2, p2.parcel.id)).status, 'in_transit');
    assert.deepEqual((await deliverYalidine(y2, 'parcel_status_updated', [e2])).body, { received: 1, duplicates: 1 }, 'still deduplicated within a store');

    // Stripe: one event id, a completed session in each store.
    const [s1, s2] = await Promise.all([shop(), shop()]);
    const [c1, c2] = await Promise.all([stripeCheckout(s1), stripeCheckout(s2)]);
    const d1 = await stripe.pay(c1.payment.providerRef, { deliver: false });
    const d2 = await stripe.pay(c2.payment.providerRef, { deliver: false });
    assert.equal((await postStripe(s1, d1.event)).status, 200);
    const r2 = await postStripe(s2, { ...d2.event, id: d1.event.id });
    assert.deepEqual(JSON.parse(r2.body), { received: 1, duplicates: 0 });
    assert.equal((await paymentOf(s2, c2.order.id)).status, 'paid');

    // Chargily: one event id, a paid checkout in each store.
    const [h1, h2] = await Promise.all([chargilyCheckout(s1), chargilyCheckout(s2)]);
    const g1 = await chargily.pay(h1.payment.providerRef, { deliver: false });
    const g2 = await chargily.pay(h2.payment.providerRef, { deliver: false });
    assert.equal((await postChargily(s1, h1.order.id, g1.event)).status, 200);
    const q2 = await postChargily(s2, h2.order.id, { ...g2.event, id: g1.event.id });
    assert.deepEqual(JSON.parse(q2.body), { received: 1, duplicates: 0 });
    assert.equal((await paymentOf(s2, h2.order.id)).status, 'paid');

    // Shopify: one X-Shopify-Event-Id, a product in each store.
    const [k1, k2] = await Promise.all([connectedStore(), connectedStore()]);
    const eventId = `ev-${Date.now()}`;
    const prod1 = shopifyProduct({ title: 'One', price: '1.00' });
    const prod2 = shopifyProduct({ title: 'Two', price: '2.00' });
    assert.deepEqual((await postShopify(k1, 'products/create', prod1, eventId)).body, { received: 1, duplicates: 0 });
    assert.deepEqual((await postShopify(k2, 'products/create', prod2, eventId)).body, { received: 1, duplicates: 0 });
    assert.ok(await linked(k2.connectorId, 'product', prod2.id));
    console.log(`# cross-store de-duplication: ${sent.count - before} webhook requests`);
  });
});

describe('a presented bearer token that is not valid', () => {
  test('is 401 problem+json with WWW-Authenticate on every route, those that need no token too', async () => {
    const s = await carrierStore();
    const p = await shop();
    const { order } = await stripeCheckout(p);
    const bogus = `Bearer ${'x'.repeat(40)}`;
    const expired = await ownerWithStore(api);
    await em().execute('update auth_tokens set expires_at = ? where user_id = ?', [new Date(Date.now() - 1000), expired.user.id]);
    const signedAsset = signedAssetPath(svc.service.deps.config, 'ast_missing', Math.floor(Date.now() / 1000) + 3600);
    const event = JSON.stringify({ id: 'evt_bearer', object: 'event', type: 'ping', data: { object: {} } });
    const stripeSigned = { 'content-type': 'application/json', 'stripe-signature': stripe.signHeader(event, p.whsec) };
    const calls: Array<[string, string, Record<string, string>?, string?]> = [
      ['GET', `/v1/stores/${s.storeId}/integrations/carrier/webhook?crc_token=abc123`],
      ['GET', `/v1/stores/${s.storeId}/integrations/carrier/webhook?subscribe&crc_token=abc123`],
      ['GET', signedAsset],
      ['POST', `/v1/stores/${p.storeId}/payment/webhook`, stripeSigned, event],
      ['POST', `/v1/orders/${order.id}/payment/webhook`, { 'content-type': 'application/json', signature: '0'.repeat(64) }, '{}'],
      ['POST', `/v1/stores/${s.storeId}/integrations/carrier/webhook`, { 'content-type': 'application/json' }, '{}'],
      ['GET', '/v1/integrations/connectors/platform/callback?state=x'],
      ['GET', '/healthz'],
      ['GET', '/v1/openapi.json'],
      ['GET', `/v1/orders/${order.id}/payment/methods`],
    ];
    let requests = 0;
    for (const authorization of [bogus, `Bearer ${expired.token}`, 'Bearer opt_unknownpaymenttoken']) {
      for (const [method, path, headers, body] of calls) {
        const res = await fetch(`${svc.url}${path}`, { method, headers: { ...(headers ?? {}), authorization }, body });
        requests++;
        const text = await res.text();
        assert.equal(res.status, 401, `${method} ${path} with ${authorization.slice(0, 12)}…: ${res.status} ${text}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, `${method} ${path}`);
        assert.equal(JSON.parse(text).code, 'UNAUTHENTICATED');
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="souk", error="invalid_token"', `${method} ${path}`);
      }
    }
    // Without a token, or with a valid one, the token-less routes answer as before.
    for (const authorization of [undefined, `Bearer ${s.token}`]) {
      const crc = await fetch(`${svc.url}/v1/stores/${s.storeId}/integrations/carrier/webhook?crc_token=abc123`, { headers: authorization ? { authorization } : {} });
      assert.deepEqual(await crc.json(), { crc_token: 'abc123' });
      const asset = await fetch(`${svc.url}${signedAsset}`, { headers: authorization ? { authorization } : {} });
      assert.equal(asset.status, 404);
      const hook = await fetch(`${svc.url}/v1/stores/${p.storeId}/payment/webhook`, { method: 'POST', headers: { ...stripeSigned, ...(authorization ? { authorization } : {}) }, body: event });
      assert.equal(hook.status, 200, await hook.text());
      requests += 3;
    }
    // A provider's own credentials in another scheme (Stripe's basic auth in the endpoint URL) are not a bearer token.
    const basic = await fetch(`${svc.url}/v1/stores/${p.storeId}/payment/webhook`, { method: 'POST', headers: { ...stripeSigned, authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }, body: event });
    assert.equal(basic.status, 200, await basic.text());
    console.log(`# invalid bearer tokens: ${requests + 1} requests`);
  });
});

describe('GET /payment/status?refresh=1 under a flood', () => {
  test('50 parallel refreshes of one payment make one provider call; all see its outcome; a refresh right after asks nobody (6 rounds)', async () => {
    const s = await shop();
    let requests = 0;
    for (let round = 0; round < 6; round++) {
      const method = round % 3 === 2 ? 'chargily' : 'stripe';
      // Odd rounds leave the payment open: it stays refreshable, so only the interval holds the next pull back.
      const paid = round % 2 === 0;
      const { order, payment } = method === 'stripe' ? await stripeCheckout(s) : await chargilyCheckout(s);
      if (paid && method === 'stripe') await stripe.pay(payment.providerRef, { deliver: false });
      else if (paid) await chargily.pay(payment.providerRef, { deliver: false });
      const pulls = () =>
        (method === 'stripe' ? stripe.requests : chargily.requests).filter(
          (r) => r.method === 'GET' && r.path === (method === 'stripe' ? `/v1/checkout/sessions/${payment.providerRef}` : `/api/v2/checkouts/${payment.providerRef}`),
        ).length;
      const before = pulls();
      const answers = await Promise.all(Array.from({ length: 50 }, () => api('GET', `${pay(order.id)}/status?refresh=1`, { token: order.paymentToken })));
      requests += answers.length;
      for (const a of answers) {
        assert.equal(a.status, 200, a.text);
        assert.equal(a.body.payment.status, paid ? 'paid' : 'requires_action', `${method}: every caller sees the one pull's outcome`);
      }
      assert.equal(pulls() - before, 1, `${method}: one provider call for 50 parallel refreshes`);
      for (let i = 0; i < 5; i++) {
        const again = await api('GET', `${pay(order.id)}/status?refresh=1`, { token: s.token });
        assert.equal(again.status, 200, again.text);
        requests++;
      }
      assert.equal(pulls() - before, 1, `${method}: refreshes right after are answered from what the pull stored`);
    }
    console.log(`# refresh flood: ${requests} requests`);
  });
});

describe('refund {amount: null}', () => {
  test('is 400 VALIDATION_FAILED at amount, on REST and GraphQL; nothing is refunded; omitted still means everything', async () => {
    const s = await shop();
    const { order, payment } = await stripeCheckout(s);
    const d = await stripe.pay(payment.providerRef);
    assert.equal(d.delivery!.status, 200, d.delivery!.body);
    const rest = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: { amount: null, reason: 'null is not omitted' } });
    assertProblem(rest, 400, 'VALIDATION_FAILED');
    assert.deepEqual(rest.body.errors.map((e: any) => e.path), ['amount']);
    const gql = await api('POST', '/graphql', {
      token: s.token,
      body: { query: `mutation($o: ID!) { refundOrderPayment(orderId: $o, input: {amount: null}) { refund { id } } }`, variables: { o: order.id } },
    });
    assert.equal(gql.body.errors?.[0]?.extensions?.code, 'VALIDATION_FAILED', gql.text);
    const viaVariable = await api('POST', '/graphql', {
      token: s.token,
      body: { query: `mutation($o: ID!, $i: PaymentRefundInput!) { refundOrderPayment(orderId: $o, input: $i) { refund { id } } }`, variables: { o: order.id, i: { amount: null } } },
    });
    assert.equal(viaVariable.body.errors?.[0]?.extensions?.code, 'VALIDATION_FAILED', viaVariable.text);
    assert.deepEqual((await api('GET', `${pay(order.id)}/status`, { token: s.token })).body.refunds, [], 'nothing was refunded');
    const all = await api('POST', `${pay(order.id)}/refund`, { token: s.token, body: {} });
    assert.equal(all.status, 201, all.text);
    assert.equal(all.body.amount, 2500);
    console.log('# refund amount null: 3 requests');
  });
});

describe('a JSON number where a REST body takes an id', () => {
  test('is 400 VALIDATION_FAILED with the field path on every route (send, batch verbs, nested ids); nothing is written', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    const numeric = Number(order.id.replace(/\D/g, '').slice(0, 9) || '123');
    const cases: Array<[string, string, unknown, string[]]> = [
      ['POST', `/v1/stores/${s.storeId}/integrations/carrier/send`, { orderId: 123 }, ['orderId']],
      ['POST', `/v1/stores/${s.storeId}/integrations/carrier/sendMany`, { orderIds: [order.id, 123, numeric] }, ['orderIds.1', 'orderIds.2']],
      ['POST', `/v1/finance/purchase-orders:batchCancel?storeId=${s.storeId}`, { ids: [1, 2] }, ['ids.0', 'ids.1']],
      ['POST', `/v1/finance/purchase-orders%3AbatchSend?storeId=${s.storeId}`, { ids: ['po_x', 7] }, ['ids.1']],
      ['POST', `/v1/stores/${s.storeId}/orders`, { customerName: 'Amina', items: [{ productId: 42, name: 'Tea', price: 1, quantity: 1 }] }, ['items.0.productId']],
      ['POST', `/v1/stores/${s.storeId}/integrations/webhooks/send`, { event: 'orderCreated', orderId: 9 }, ['orderId']],
    ];
    for (const [method, path, body, paths] of cases) {
      const res = await api(method, path, { token: s.token, body });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors.map((e: any) => e.path), paths, `${method} ${path}`);
      assert.ok(res.body.errors.every((e: any) => e.message === 'must be a string'), res.text);
    }
    const orders = await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token });
    assert.equal(orders.body.data.length, 1, 'no order was created');
    assert.deepEqual((await api('GET', `/v1/stores/${s.storeId}/integrations/carrier/parcels`, { token: s.token })).body.data, [], 'nothing was shipped');
    // The same ids as strings are looked up as before.
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/integrations/carrier/send`, { token: s.token, body: { orderId: '123' } }), 404, 'NOT_FOUND');
    // The Feeef face's routes too.
    const ff = await feeefStore(svc.url);
    const feeef = await ff.ff.post('/orders', { storeId: ff.storeId, customerName: 'Karim', customerPhone: '0555000000', items: [{ productId: 42, quantity: 1 }] });
    assertFeeefProblem(feeef, 400, 'VALIDATION_FAILED');
    assert.ok(feeef.data.errors.some((e: any) => /productId$/.test(e.path) && e.message === 'must be a string'), feeef.text);
    console.log(`# numeric ids: ${cases.length + 4} requests`);
  });
});
