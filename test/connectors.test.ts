import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, until, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { gqlSubscribe, STORE_EVENTS } from './sse-client.js';
import { shopifyId, shopifyOrder, shopifyProduct, shopifyWebhook, signQuery, startFakeShopify, type FakeShopify } from './fakes/shopify.js';
import { parseShopifyJson } from '../src/providers/shopify/shopify.js';
import { userAgent } from './user-agent.js';

let svc: TestService;
let api: Api;
let shopify: FakeShopify;
let rx: Receiver;

before(async () => {
  shopify = await startFakeShopify();
  rx = await startReceiver();
  svc = await startTestService({
    SOUK_WEBHOOK_ALLOW_LOOPBACK: '1',
    SOUK_SHOPIFY_ADMIN_URL_TEMPLATE: shopify.template,
    SOUK_SHOPIFY_CLIENT_ID: shopify.clientId,
    SOUK_SHOPIFY_CLIENT_SECRET: shopify.clientSecret,
    SOUK_RETURN_URL_ORIGINS: 'https://merchant.example',
  });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await rx.close();
  await shopify.close();
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
const base = (s: Owner) => `/v1/stores/${s.storeId}/integrations/connectors/platform`;
const CALLBACK = () => `${svc.url}/v1/integrations/connectors/platform/callback`;
const RETURN = 'https://merchant.example/connectors';
const em = () => svc.service.deps.orm.em.fork();
const get = (url: string) => fetch(url, { redirect: 'manual' });
let shops = 0;
const newShop = () => `shop-${Date.now().toString(36)}-${shops++}.myshopify.com`;

/** A store with a webhook on the receiver (to prove nothing echoes), for a fresh shop. */
async function storeWithHook() {
  const s = await ownerWithStore(api);
  const path = `/hook/${s.storeId}`;
  const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
  assert.equal(hook.status, 201, hook.text);
  return { ...s, shop: newShop(), fromHere: (r: { path: string }) => r.path === path };
}

/** install-url from the merchant's browser, the shop's install page (approved at once), and its signed callback in that browser. */
async function install(s: Owner & { shop: string }) {
  const ua = userAgent(svc.url);
  const res = await ua.fetch(`${svc.url}${base(s)}/install-url?shop=${s.shop}&returnUrl=${encodeURIComponent(RETURN)}`, { headers: { authorization: `Bearer ${s.token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { url: string; connectorId: string; state: string };
  const page = await get(body.url);
  assert.equal(page.status, 302);
  const callbackUrl = page.headers.get('location')!;
  const callback = await ua.fetch(callbackUrl);
  return { ...body, callbackUrl, callback, ua };
}

const webhookUrl = (storeId: string, connectorId: string) => `${svc.url}/v1/integrations/connectors/platform/webhook/${storeId}/${connectorId}`;

async function post(storeId: string, connectorId: string, topic: string, payload: unknown, o: { shop: string; eventId?: string; secret?: string; headers?: Record<string, string> }) {
  const w = shopifyWebhook(topic, payload, { shop: o.shop, secret: o.secret ?? shopify.clientSecret, eventId: o.eventId });
  const res = await fetch(webhookUrl(storeId, connectorId), { method: 'POST', headers: { ...w.headers, ...(o.headers ?? {}) }, body: w.body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null, headers: res.headers };
}

const localOf = async (connectorId: string, resource: string, remoteId: string) =>
  (await em().execute('select local_id from connector_links where connector_id = ? and resource = ? and remote_id = ?', [connectorId, resource, remoteId]))[0]?.local_id as string | undefined;

describe('install', () => {
  test('install-url → shop → callback: active, webhooks registered, first import of products and orders as inbound writes', async () => {
    const s = await storeWithHook();
    const shop = shopify.shop(s.shop);
    shopify.pageSize = 2;
    const products = [shopifyProduct({ title: 'Argan Oil', price: '1500.00', qty: 7 }), shopifyProduct({ title: 'Black Soap', price: '650.50', qty: 3 }), shopifyProduct({ title: 'Henna', price: '300', qty: 0, status: 'draft' })];
    shop.products.push(...products);
    shop.orders.push(
      shopifyOrder({ lines: [{ productId: products[0].id, title: 'Argan Oil', quantity: 2, price: '1500.00' }], shipping: '400.00', discount: '100.00', financialStatus: 'paid' }),
      shopifyOrder({ lines: [{ title: 'Gift', quantity: 1, price: '99.99' }], fulfillmentStatus: 'fulfilled' }),
      shopifyOrder({ lines: [{ title: 'Late', quantity: 1, price: '10.00' }], cancelledAt: new Date() }),
    );
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await sub.connected;
      await sleep(200);
      const { url, connectorId, state, callback } = await install(s);
      const auth = new URL(url);
      assert.equal(auth.origin + auth.pathname, `${shopify.url}/${s.shop}/admin/oauth/authorize`);
      assert.equal(auth.searchParams.get('client_id'), shopify.clientId);
      assert.equal(auth.searchParams.get('redirect_uri'), CALLBACK());
      assert.equal(auth.searchParams.get('state'), state);
      assert.match(connectorId, /^con_[0-9a-f]+$/);
      assert.equal(callback.status, 302, await callback.clone().text());
      assert.equal(callback.headers.get('location'), `${RETURN}?status=active`);

      assert.deepEqual(shop.webhooks.map((w) => w.topic).sort(), ['app/uninstalled', 'orders/create', 'orders/delete', 'orders/updated', 'products/create', 'products/delete', 'products/update']);
      assert.ok(shop.webhooks.every((w) => w.address === webhookUrl(s.storeId, connectorId)));
      const imported = await until('the import', async () => {
        const list = await api('GET', base(s), { token: s.token });
        return list.body.data[0]?.importedAt ? list.body.data[0] : null;
      });
      assert.equal(imported.status, 'active');
      assert.equal(imported.shopDomain, s.shop);
      assert.deepEqual(imported.sync, { products: true, orders: true });

      const list = (await api('GET', `/v1/stores/${s.storeId}/products`, { token: s.token })).body.data;
      assert.equal(list.length, 3);
      const argan = list.find((p: any) => p.name === 'Argan Oil');
      assert.equal(argan.price, 1500);
      assert.equal(argan.stock, 7);
      assert.equal(argan.slug, 'argan-oil');
      assert.deepEqual(argan.metadata.connector, { integrationSource: 'inbound', connectorId, remoteId: products[0].id, remoteUpdatedAt: products[0].updated_at });
      assert.equal(list.find((p: any) => p.name === 'Henna').status, 'draft');
      const orders = (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data;
      assert.equal(orders.length, 3);
      const paid = orders.find((o: any) => o.items[0].name === 'Argan Oil');
      assert.equal(paid.total, 3300);
      assert.equal(paid.shippingCost, 400);
      assert.equal(paid.discount, 100);
      assert.equal(paid.paymentStatus, 'paid');
      assert.equal(paid.customerName, 'Karim Haddad');
      assert.equal(paid.status, 'pending');
      assert.equal(paid.shippingAddress.communeName, 'Alger Centre');
      assert.equal(paid.metadata.connector.integrationSource, 'inbound');
      assert.equal(orders.find((o: any) => o.items[0].name === 'Gift').status, 'delivered');
      assert.equal(orders.find((o: any) => o.items[0].name === 'Late').status, 'cancelled');

      // Realtime subscribers got all six; no webhook delivery was queued for any of them.
      await sub.waitFor(6);
      assert.deepEqual(sub.events().map((e) => e.event).sort(), ['orderCreated', 'orderCreated', 'orderCreated', 'productCreated', 'productCreated', 'productCreated']);
      const [{ n }] = await em().execute(`select count(*)::int as n from pgboss.job where name = 'webhook-delivery' and data->>'storeId' = ?`, [s.storeId]);
      assert.equal(n, 0);
      await sleep(500);
      assert.equal(rx.received.filter(s.fromHere).length, 0);

      // The merchant's own edit of an imported product is judged on its own: it fires.
      const edit = await api('PATCH', `/v1/stores/${s.storeId}/products/${argan.id}`, { token: s.token, body: { price: 1600 } });
      assert.equal(edit.status, 200, edit.text);
      const [d] = await rx.waitFor(1, 10_000, s.fromHere);
      assert.equal(d.json.event, 'productUpdated');
      assert.equal(d.json.data.product.metadata.connector.integrationSource, 'inbound');
      assert.equal(d.json.data.previous_data.price, 1500);
    } finally {
      sub.close();
      shopify.pageSize = 250;
    }
  });

  test('install answers a 302 to the install page; the token is encrypted and never shown', async () => {
    const s = await storeWithHook();
    const ua = userAgent(svc.url);
    const res = await ua.fetch(`${svc.url}${base(s)}/install?shop=${s.shop}`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(res.status, 302);
    const location = new URL(res.headers.get('location')!);
    assert.equal(location.origin + location.pathname, `${shopify.url}/${s.shop}/admin/oauth/authorize`);
    const callback = await ua.fetch((await get(location.toString())).headers.get('location')!);
    assert.equal(callback.headers.get('location'), `${svc.url}/dashboard?status=active`);
    const [token] = [...shopify.shop(s.shop).tokens];
    const [row] = await em().execute('select token_enc from connectors where store_id = ?', [s.storeId]);
    assert.ok(row.token_enc.startsWith('v1.') && !row.token_enc.includes(token));
    const list = await api('GET', base(s), { token: s.token });
    assert.equal(list.body.data.length, 1);
    assert.ok(!list.text.includes(token));
  });

  test('callbacks that cannot be verified: bad hmac, replayed, expired or unknown state, old timestamp, another shop — one identical 401, never a redirect', async () => {
    const s = await storeWithHook();
    const first = await install(s);
    assert.equal(first.callback.status, 302);
    // Sent with the starting member's own token, so each is refused for its own fault, not for a missing browser binding.
    const asMember = (u: string) => fetch(u, { redirect: 'manual', headers: { authorization: `Bearer ${s.token}` } });
    const replayed = await asMember(first.callbackUrl);

    const fresh = await api('GET', `${base(s)}/install-url?shop=${s.shop}`, { token: s.token });
    const params = (over: Record<string, string> = {}) => ({ code: 'c0de', shop: s.shop, state: fresh.body.state, timestamp: String(Math.floor(Date.now() / 1000)), host: 'aG9zdA', ...over });
    const url = (q: Record<string, string>) => `${CALLBACK()}?${new URLSearchParams(q)}`;
    const badHmac = await asMember(url({ ...signQuery(params(), shopify.clientSecret), hmac: '0'.repeat(64) }));
    const wrongKey = await asMember(url(signQuery(params(), 'not-the-secret')));
    const tampered = await asMember(url({ ...signQuery(params(), shopify.clientSecret), code: 'other' }));
    const old = await asMember(url(signQuery(params({ timestamp: String(Math.floor(Date.now() / 1000) - 25 * 3600) }), shopify.clientSecret)));
    const otherShop = await asMember(url(signQuery(params({ shop: newShop() }), shopify.clientSecret)));
    const unknown = await asMember(url(signQuery(params({ state: 'no-such-state' }), shopify.clientSecret)));
    const noState = await asMember(url(signQuery({ code: 'x', shop: s.shop, timestamp: params().timestamp }, shopify.clientSecret)));
    // None of those used the state up: the genuine callback still works once.
    const fine = await asMember(url(signQuery(params(), shopify.clientSecret)));
    assert.equal(fine.status, 302, 'the state survived the refused attempts');
    await em().execute(`update oauth_states set expires_at = now() - interval '1 second' where store_id = ?`, [s.storeId]);
    const third = await api('GET', `${base(s)}/install-url?shop=${s.shop}`, { token: s.token });
    await em().execute(`update oauth_states set expires_at = now() - interval '1 second' where store_id = ?`, [s.storeId]);
    const expired = await asMember(url(signQuery(params({ state: third.body.state }), shopify.clientSecret)));
    const bodies: string[] = [];
    for (const r of [replayed, badHmac, wrongKey, tampered, old, otherShop, unknown, noState, expired]) {
      assert.equal(r.status, 401);
      assert.equal(r.headers.get('location'), null);
      assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
      bodies.push(await r.text());
    }
    assert.equal(new Set(bodies).size, 1, bodies.join('\n'));
  });

  test('the merchant declines: 302 with status=denied', async () => {
    const s = await storeWithHook();
    shopify.deny = true;
    try {
      const { callback } = await install(s);
      assert.equal(callback.status, 302);
      assert.equal(callback.headers.get('location'), `${RETURN}?status=denied`);
    } finally {
      shopify.deny = false;
    }
    assert.equal((await api('GET', base(s), { token: s.token })).body.data[0].status, 'pending');
  });

  test('at most 5 connectors counting pending ones; a shop active in another store → 409; admin only', async () => {
    const s = await storeWithHook();
    for (let i = 0; i < 5; i++) assert.equal((await api('GET', `${base(s)}/install-url?shop=${newShop()}`, { token: s.token })).status, 200);
    assertProblem(await api('GET', `${base(s)}/install-url?shop=${newShop()}`, { token: s.token }), 422, 'LIMIT_EXCEEDED');
    const again = (await api('GET', base(s), { token: s.token })).body.data[0].shopDomain;
    assert.equal((await api('GET', `${base(s)}/install-url?shop=${again}`, { token: s.token })).status, 200, 'the same shop again reuses its connector');

    const a = await storeWithHook();
    assert.equal((await install(a)).callback.status, 302);
    const b = await storeWithHook();
    assertProblem(await api('GET', `${base(b)}/install-url?shop=${a.shop}`, { token: b.token }), 409, 'CONFLICT');
    assertProblem(await api('GET', `${base(b)}/install-url?shop=not a shop`, { token: b.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base(b)}/install-url`, { token: b.token }), 400, 'VALIDATION_FAILED');
    const editor = await memberWithRole(api, b.token, b.storeId, 'editor');
    assertProblem(await api('GET', base(b), { token: editor.token }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `${base(b)}/install-url?shop=${newShop()}`, { token: editor.token }), 403, 'FORBIDDEN');
  });
});

async function activeConnector() {
  const s = await storeWithHook();
  const { connectorId, callback } = await install(s);
  assert.equal(callback.status, 302);
  await until('the (empty) import', async () => (await em().execute('select imported_at from connectors where id = ?', [connectorId]))[0]?.imported_at);
  return { ...s, connectorId };
}

describe('webhooks', () => {
  test('a product webhook upserts; a duplicate X-Shopify-Event-Id changes nothing', async () => {
    const s = await activeConnector();
    const p = shopifyProduct({ title: 'Dates', price: '800.00', qty: 4 });
    const eventId = `evt-${shopifyId()}`;
    const first = await post(s.storeId, s.connectorId, 'products/create', p, { shop: s.shop, eventId });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { received: 1, duplicates: 0 });
    const id = await localOf(s.connectorId, 'product', p.id);
    assert.ok(id);
    const [{ seq }] = await em().execute('select coalesce(max(seq), 0) as seq from store_events where store_id = ?', [s.storeId]);
    const replay = await post(s.storeId, s.connectorId, 'products/create', { ...p, title: 'Changed', updated_at: new Date(Date.now() + 60_000).toISOString() }, { shop: s.shop, eventId });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, { received: 1, duplicates: 1 });
    const [{ seq: after }] = await em().execute('select coalesce(max(seq), 0) as seq from store_events where store_id = ?', [s.storeId]);
    assert.equal(after, seq, 'no event for a duplicate');
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/products/${id}`, { token: s.token })).body.name, 'Dates');

    const later = new Date(Date.now() + 1000);
    const update = await post(s.storeId, s.connectorId, 'products/update', { ...p, title: 'Deglet Dates', updated_at: later.toISOString(), variants: [{ ...p.variants[0], price: '850.00', inventory_quantity: 9 }] }, { shop: s.shop });
    assert.deepEqual(update.body, { received: 1, duplicates: 0 });
    const product = (await api('GET', `/v1/stores/${s.storeId}/products/${id}`, { token: s.token })).body;
    assert.equal(product.name, 'Deglet Dates');
    assert.equal(product.price, 850);
    assert.equal(product.stock, 9);
    assert.equal(product.metadata.connector.remoteUpdatedAt, later.toISOString());

    const del = await post(s.storeId, s.connectorId, 'products/delete', { id: p.id }, { shop: s.shop });
    assert.equal(del.status, 200);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/products/${id}`, { token: s.token }), 404, 'NOT_FOUND');
    await sleep(800);
    assert.equal(rx.received.filter(s.fromHere).length, 0, 'no connector write fired a webhook');
    const [{ n }] = await em().execute(`select count(*)::int as n from pgboss.job where name = 'webhook-delivery' and data->>'storeId' = ?`, [s.storeId]);
    assert.equal(n, 0);
  });

  test('orders/updated before orders/create ends in the latest state', async () => {
    const s = await activeConnector();
    const created = new Date(Date.now() - 60_000);
    const updated = new Date();
    const id = shopifyId();
    const v1 = shopifyOrder({ id, updatedAt: created, lines: [{ title: 'Rug', quantity: 1, price: '5000.00' }], financialStatus: 'pending' });
    const v2 = shopifyOrder({ id, updatedAt: updated, lines: [{ title: 'Rug', quantity: 2, price: '5000.00' }], financialStatus: 'paid', cancelledAt: null, fulfillmentStatus: 'fulfilled' });
    assert.deepEqual((await post(s.storeId, s.connectorId, 'orders/updated', v2, { shop: s.shop })).body, { received: 1, duplicates: 0 });
    assert.deepEqual((await post(s.storeId, s.connectorId, 'orders/create', v1, { shop: s.shop })).body, { received: 1, duplicates: 0 });
    const local = await localOf(s.connectorId, 'order', id);
    const order = (await api('GET', `/v1/stores/${s.storeId}/orders/${local}`, { token: s.token })).body;
    assert.equal(order.items[0].quantity, 2);
    assert.equal(order.total, 10000);
    assert.equal(order.paymentStatus, 'paid');
    assert.equal(order.status, 'delivered');
    assert.equal(order.metadata.connector.remoteUpdatedAt, updated.toISOString());
    const all = (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data;
    assert.equal(all.length, 1);
    // A remote cancel later moves it; a merchant's edit after that fires a webhook.
    const v3 = { ...v2, cancelled_at: new Date().toISOString(), updated_at: new Date(Date.now() + 1000).toISOString() };
    await post(s.storeId, s.connectorId, 'orders/updated', v3, { shop: s.shop });
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/orders/${local}`, { token: s.token })).body.status, 'cancelled');
    await sleep(500);
    assert.equal(rx.received.filter(s.fromHere).length, 0);
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${local}`, { token: s.token, body: { customerName: 'Karim H.' } });
    const [d] = await rx.waitFor(1, 10_000, s.fromHere);
    assert.equal(d.json.event, 'orderUpdated');
  });

  test('many deliveries of the same remote records at once, out of order and repeated: one local record each, the latest state', async () => {
    const s = await activeConnector();
    const id = shopifyId();
    const versions = Array.from({ length: 8 }, (_, i) => shopifyProduct({ id, title: `Version ${i}`, price: `${100 + i}.00`, updatedAt: new Date(Date.now() + i * 1000) }));
    const shuffled = [...versions, ...versions].sort(() => Math.random() - 0.5);
    const answers = await Promise.all(shuffled.map((v) => post(s.storeId, s.connectorId, 'products/update', v, { shop: s.shop })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const list = (await api('GET', `/v1/stores/${s.storeId}/products`, { token: s.token })).body.data;
    assert.equal(list.length, 1);
    assert.equal(list[0].name, 'Version 7');
    assert.equal(list[0].price, 107);
  });

  test('unverifiable webhooks: bad HMAC, another shop, unknown connector or store — one identical 401', async () => {
    const s = await activeConnector();
    const other = await activeConnector();
    const p = shopifyProduct({ title: 'X', price: '1.00' });
    const answers = [
      await post(s.storeId, s.connectorId, 'products/create', p, { shop: s.shop, secret: 'wrong' }),
      await post(s.storeId, s.connectorId, 'products/create', p, { shop: other.shop }),
      await post(s.storeId, 'con_0000000000000000000000000000', 'products/create', p, { shop: s.shop }),
      await post(other.storeId, s.connectorId, 'products/create', p, { shop: s.shop }),
      await post(s.storeId, s.connectorId, 'products/create', p, { shop: s.shop, headers: { 'x-shopify-hmac-sha256': '' } }),
    ];
    for (const a of answers) {
      assert.equal(a.status, 401);
      assert.match(a.headers.get('content-type') ?? '', /application\/problem\+json/);
    }
    assert.equal(new Set(answers.map((a) => a.text)).size, 1);
    assert.deepEqual((await api('GET', `/v1/stores/${s.storeId}/products`, { token: s.token })).body.data, []);
  });

  test('app/uninstalled: the connector is uninstalled and its webhooks are refused from then on', async () => {
    const s = await activeConnector();
    const res = await post(s.storeId, s.connectorId, 'app/uninstalled', { id: 1, domain: s.shop, myshopify_domain: s.shop }, { shop: s.shop });
    assert.deepEqual(res.body, { received: 1, duplicates: 0 });
    const [c] = (await api('GET', base(s), { token: s.token })).body.data;
    assert.equal(c.status, 'uninstalled');
    assert.equal((await em().execute('select token_enc from connectors where id = ?', [s.connectorId]))[0].token_enc, null);
    assert.equal((await post(s.storeId, s.connectorId, 'products/create', shopifyProduct({ title: 'Y', price: '1' }), { shop: s.shop })).status, 401);
  });

  test('Shopify ids beyond 2^53 keep every digit', () => {
    const parsed = parseShopifyJson('{"id": 9007199254740993, "product_id": 12345678901234567, "price": 19.99, "line_items": [{"id": 18446744073709551615}]}') as any;
    assert.equal(parsed.id, '9007199254740993');
    assert.equal(parsed.product_id, '12345678901234567');
    assert.equal(parsed.line_items[0].id, '18446744073709551615');
    assert.equal(parsed.price, 19.99);
  });
});

describe("imports keep to the API's limits", () => {
  test('a line quantity of 2^31 is refused (lastError says why) and the order list still answers; text is clamped; a corrected update imports', async () => {
    const s = await activeConnector();
    const id = shopifyId();
    const huge = shopifyOrder({ id, updatedAt: new Date(Date.now() - 60_000), lines: [{ title: 'Rug', quantity: 2 ** 31, price: '5000.00' }] });
    const res = await post(s.storeId, s.connectorId, 'orders/create', huge, { shop: s.shop });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: 1, duplicates: 0 });
    assert.equal(await localOf(s.connectorId, 'order', id), undefined, 'nothing stored');
    const list = await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.data.length, 0);
    const connector = (await api('GET', base(s), { token: s.token })).body.data.find((c: any) => c.id === s.connectorId);
    assert.match(connector.lastError, /items\.0\.quantity: must be 1 to 100000/);

    // An amount above the API's 10^12.
    const costly = shopifyOrder({ lines: [{ title: 'Rug', quantity: 1, price: '10000000000000.00' }] });
    assert.equal((await post(s.storeId, s.connectorId, 'orders/create', costly, { shop: s.shop })).status, 200);
    assert.equal(await localOf(s.connectorId, 'order', costly.id), undefined);

    const fixed = shopifyOrder({ id, lines: [{ title: 'R'.repeat(300), quantity: 3, price: '5000.00' }] });
    assert.deepEqual((await post(s.storeId, s.connectorId, 'orders/updated', fixed, { shop: s.shop })).body, { received: 1, duplicates: 0 });
    const local = await localOf(s.connectorId, 'order', id);
    assert.ok(local);
    const order = (await api('GET', `/v1/stores/${s.storeId}/orders/${local}`, { token: s.token })).body;
    assert.deepEqual([order.items[0].name.length, order.items[0].quantity, order.total], [200, 3, 15000]);
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).status, 200);
  });
});
