/**
 * Account linking (issue 28): an OAuth or install flow completes only for the browser that
 * started it and only while its starter may still manage the store's integrations; return URLs
 * stay on configured origins, shop domains on Shopify's form; ad-account cursors are signed.
 * Each attack runs end to end against the fake Shopify and the fake Meta.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { shopifyProduct, startFakeShopify, type FakeShopify } from './fakes/shopify.js';
import { metaUser, startFakeMeta, type FakeMeta } from './fakes/meta.js';
import { userAgent, type UserAgent } from './user-agent.js';
import { ConfigError, loadConfig } from '../src/config.js';

let svc: TestService;
let api: Api;
let shopify: FakeShopify;
let meta: FakeMeta;

const ALLOWED = 'https://console.merchant.example';

before(async () => {
  [shopify, meta] = await Promise.all([startFakeShopify(), startFakeMeta()]);
  svc = await startTestService({
    SOUK_SHOPIFY_ADMIN_URL_TEMPLATE: shopify.template,
    SOUK_SHOPIFY_CLIENT_ID: shopify.clientId,
    SOUK_SHOPIFY_CLIENT_SECRET: shopify.clientSecret,
    SOUK_META_GRAPH_URL: meta.url,
    SOUK_META_APP_ID: meta.appId,
    SOUK_META_APP_SECRET: meta.appSecret,
    SOUK_RETURN_URL_ORIGINS: `${ALLOWED}, https://admin.merchant.example`,
  });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await Promise.all([shopify.close(), meta.close()]);
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
const connectors = (storeId: string) => `/v1/stores/${storeId}/integrations/connectors/platform`;
const ads = (storeId: string) => `/v1/stores/${storeId}/integrations/ads-platform`;
const em = () => svc.service.deps.orm.em.fork();
let shops = 0;
const newShop = () => `linking-${Date.now().toString(36)}-${shops++}.myshopify.com`;
const browser = () => userAgent(svc.url);
const json = async (res: Response) => JSON.parse(await res.text());

/** Starts a shop install from a member's browser (the console calls install-url with its token). */
async function startInstall(ua: UserAgent, s: { storeId: string; token: string }, shop: string, returnUrl = `${ALLOWED}/connectors`) {
  const res = await ua.fetch(`${svc.url}${connectors(s.storeId)}/install-url?shop=${shop}&returnUrl=${encodeURIComponent(returnUrl)}`, { headers: { authorization: `Bearer ${s.token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { url: string; connectorId: string; state: string };
}

/** Starts Meta's flow from a member's browser. */
async function startMeta(ua: UserAgent, s: { storeId: string; token: string }) {
  const res = await ua.fetch(`${svc.url}${ads(s.storeId)}/oauth/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ returnUrl: `${ALLOWED}/ads` }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { authorizationUrl: string; state: string };
}

/** A browser approves at the provider, which redirects it to Souk's callback; answers the callback's response. */
async function approve(ua: UserAgent, providerUrl: string) {
  const page = await ua.fetch(providerUrl);
  assert.equal(page.status, 302);
  const callbackUrl = page.headers.get('location')!;
  return { callbackUrl, callback: await ua.fetch(callbackUrl) };
}

async function connectorRow(storeId: string, shop: string) {
  const [row] = await em().execute('select status, token_enc from connectors where store_id = ? and shop_domain = ?', [storeId, shop]);
  return row as { status: string; token_enc: string | null } | undefined;
}

describe('a flow completes only for the browser that started it (RFC 6749 §10.12)', () => {
  test('Shopify: an install link another store started, approved in the shop owner\'s browser, links nothing; the shop then connects to its own store', async () => {
    const attacker = await ownerWithStore(api);
    const victim = await ownerWithStore(api);
    const shop = newShop();
    shopify.shop(shop).products.push(shopifyProduct({ title: 'Secret Catalogue', price: '10.00' }));
    const attackerBrowser = browser();
    const victimBrowser = browser();

    // Request 1: the attacker's install-url (returnUrl on an allowed origin: any other is refused below).
    const link = await startInstall(attackerBrowser, attacker, shop);
    // Requests 2-3: the victim opens the link, approves, and the shop sends the victim's browser to the callback.
    const { callbackUrl, callback } = await approve(victimBrowser, link.url);
    assert.equal(callback.status, 401);
    assert.equal((await json(callback)).code, 'UNAUTHENTICATED');
    assert.equal(callback.headers.get('location'), null);
    assert.equal(shopify.shop(shop).tokens.size, 0, 'no code was exchanged');
    assert.equal((await connectorRow(attacker.storeId, shop))?.status, 'pending');
    assert.equal((await connectorRow(attacker.storeId, shop))?.token_enc, null);
    const imported = await api('GET', `/v1/stores/${attacker.storeId}/products`, { token: attacker.token });
    assert.equal(imported.body.data.length, 0);

    // The shop owner connects the shop to their own store from their own browser: it works (no 409).
    const own = await startInstall(victimBrowser, victim, shop);
    const done = await approve(victimBrowser, own.url);
    assert.equal(done.callback.status, 302, await done.callback.clone().text());
    assert.equal(done.callback.headers.get('location'), `${ALLOWED}/connectors?status=active`);
    assert.equal((await connectorRow(victim.storeId, shop))?.status, 'active');
    assert.equal(victimBrowser.cookies().length, 0, 'the binding cookie is spent with the flow');
    assert.notEqual(callbackUrl, done.callbackUrl);
  });

  test('Meta: a connect link another store started, approved in the victim\'s browser, connects nothing', async () => {
    const attacker = await ownerWithStore(api);
    meta.user = metaUser(3, `victim${Date.now()}`);
    const exchangesBefore = meta.calls.filter((c) => c === 'GET /oauth/access_token').length;
    // Request 1: the attacker's oauth/start; requests 2-3: the victim's dialog and callback.
    const start = await startMeta(browser(), attacker);
    const { callback } = await approve(browser(), start.authorizationUrl);
    assert.equal(callback.status, 401);
    assert.equal((await json(callback)).code, 'UNAUTHENTICATED');
    assert.equal(meta.calls.filter((c) => c === 'GET /oauth/access_token').length, exchangesBefore, 'no code was exchanged');
    const conn = await api('GET', ads(attacker.storeId), { token: attacker.token });
    assert.equal(conn.body.status, 'disconnected');
  });

  test('the browser that started the flow completes it; a callback without its cookie leaves the state usable', async () => {
    const s = await ownerWithStore(api);
    meta.user = metaUser(3, `owner${Date.now()}`);
    const ua = browser();
    const start = await startMeta(ua, s);
    const page = await ua.fetch(start.authorizationUrl);
    const callbackUrl = page.headers.get('location')!;
    const elsewhere = await fetch(callbackUrl, { redirect: 'manual' });
    assert.equal(elsewhere.status, 401);
    const forged = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: ua.cookies().map((n) => `${n}=forged`).join('; ') } });
    assert.equal(forged.status, 401);
    const callback = await ua.fetch(callbackUrl);
    assert.equal(callback.status, 302, await callback.clone().text());
    assert.equal(callback.headers.get('location'), `${ALLOWED}/ads?status=connected`);
    assert.equal((await api('GET', ads(s.storeId), { token: s.token })).body.status, 'connected');
  });


  test('a verified refusal links nothing, so it ends the flow from any client: 302 with status=denied', async () => {
    const s = await ownerWithStore(api);
    const shop = newShop();
    shopify.deny = true;
    try {
      // Started in the member's browser; the provider's refusal comes back through a client without its cookie.
      const started = await startInstall(browser(), s, shop);
      const { callback } = await approve(browser(), started.url);
      assert.equal(callback.status, 302, await callback.clone().text());
      assert.equal(callback.headers.get('location'), `${ALLOWED}/connectors?status=denied`);
    } finally {
      shopify.deny = false;
    }
    assert.equal((await connectorRow(s.storeId, shop))?.status, 'pending');
  });
  test('a client that is not a browser finishes with the starting member\'s own token; another member\'s token does not', async () => {
    const owner = await ownerWithStore(api);
    const admin = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    const shop = newShop();
    const link = await startInstall(browser(), owner, shop);
    const callbackUrl = (await fetch(link.url, { redirect: 'manual' })).headers.get('location')!;
    const asAdmin = await fetch(callbackUrl, { redirect: 'manual', headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(asAdmin.status, 401);
    const asOwner = await fetch(callbackUrl, { redirect: 'manual', headers: { authorization: `Bearer ${owner.token}` } });
    assert.equal(asOwner.status, 302, await asOwner.clone().text());
    assert.equal((await connectorRow(owner.storeId, shop))?.status, 'active');
  });

  test('the start answer sets the binding cookie HttpOnly, SameSite=Lax, on the callback path only, for 10 minutes', async () => {
    const s = await ownerWithStore(api);
    const res = await fetch(`${svc.url}${connectors(s.storeId)}/install-url?shop=${newShop()}`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(res.status, 200);
    const [cookie] = res.headers.getSetCookie();
    assert.match(cookie, /^souk_oauth_[0-9a-f]{16}=[A-Za-z0-9_-]{43}; Path=\/v1\/integrations\/connectors\/platform\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
    assert.ok(!cookie.includes(((await res.json()) as { state: string }).state), 'the cookie is not the state itself');
    // GraphQL starts set it too.
    const gql = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation($s: ID!) { startAdsOAuth(storeId: $s) { state } }`, variables: { s: s.storeId } }),
    });
    const started = (await gql.json()) as { data: { startAdsOAuth: { state: string } } };
    assert.ok(started.data.startAdsOAuth.state);
    assert.match(gql.headers.getSetCookie()[0] ?? '', /^souk_oauth_[0-9a-f]{16}=.+; HttpOnly; SameSite=Lax$/);
  });
});

describe('the member who started a flow must still manage the store when it completes', () => {
  test('Shopify: an admin removed after starting an install cannot finish it', async () => {
    const owner = await ownerWithStore(api);
    const admin = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    const shop = newShop();
    const ua = browser();
    const link = await startInstall(ua, { storeId: owner.storeId, token: admin.token }, shop);
    const removed = await api('DELETE', `/v1/stores/${owner.storeId}/members/${admin.user.id}`, { token: owner.token });
    assert.equal(removed.status, 204, removed.text);
    const { callback } = await approve(ua, link.url);
    assert.equal(callback.status, 403, await callback.clone().text());
    assert.equal((await json(callback)).code, 'FORBIDDEN');
    assert.equal(callback.headers.get('location'), null);
    assert.equal(shopify.shop(shop).tokens.size, 0);
    assert.equal((await connectorRow(owner.storeId, shop))?.status, 'pending');
  });

  test('Meta: an admin demoted to editor after starting cannot finish it', async () => {
    const owner = await ownerWithStore(api);
    const admin = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    meta.user = metaUser(3, `demoted${Date.now()}`);
    const ua = browser();
    const start = await startMeta(ua, { storeId: owner.storeId, token: admin.token });
    const demoted = await api('PATCH', `/v1/stores/${owner.storeId}/members/${admin.user.id}`, { token: owner.token, body: { role: 'editor' } });
    assert.equal(demoted.status, 200, demoted.text);
    const { callback } = await approve(ua, start.authorizationUrl);
    assert.equal(callback.status, 403);
    assert.equal((await api('GET', ads(owner.storeId), { token: owner.token })).body.status, 'disconnected');
  });
});

describe('what a flow may be started with', () => {
  test('returnUrl only on the configured origins: anything else is 400 at install-url, install and oauth/start', async () => {
    const s = await ownerWithStore(api);
    const bad = ['https://attacker.example/x', 'https://console.merchant.example.attacker.example/x', 'https://console.merchant.example@attacker.example/x', 'http://console.merchant.example/x', 'javascript:alert(1)', '//attacker.example/x'];
    for (const returnUrl of bad) {
      const q = `shop=${newShop()}&returnUrl=${encodeURIComponent(returnUrl)}`;
      const url = await api('GET', `${connectors(s.storeId)}/install-url?${q}`, { token: s.token });
      assertProblem(url, 400, 'VALIDATION_FAILED');
      assert.equal(url.body.errors[0].path, 'returnUrl', returnUrl);
      assertProblem(await api('GET', `${connectors(s.storeId)}/install?${q}`, { token: s.token }), 400, 'VALIDATION_FAILED');
      const start = await api('POST', `${ads(s.storeId)}/oauth/start`, { token: s.token, body: { returnUrl } });
      assertProblem(start, 400, 'VALIDATION_FAILED');
      assert.equal(start.body.errors[0].path, 'returnUrl');
    }
    const [{ n }] = await em().execute('select count(*)::int as n from oauth_states where store_id = ?', [s.storeId]);
    assert.equal(n, 0, 'no state was created for a refused returnUrl');
    for (const returnUrl of [`${ALLOWED}/x?y=1`, 'https://admin.merchant.example/']) {
      const ok = await api('GET', `${connectors(s.storeId)}/install-url?shop=${newShop()}&returnUrl=${encodeURIComponent(returnUrl)}`, { token: s.token });
      assert.equal(ok.status, 200, ok.text);
    }
    // The default (the dashboard) needs no allowance.
    assert.equal((await api('GET', `${connectors(s.storeId)}/install-url?shop=${newShop()}`, { token: s.token })).status, 200);
  });

  test('SOUK_RETURN_URL_ORIGINS takes origins only; unset, the public URL\'s origin', () => {
    const config = (origins?: string) => loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: svc.service.deps.config.dataDir, SOUK_PUBLIC_URL: 'https://souk.example/base', ...(origins === undefined ? {} : { SOUK_RETURN_URL_ORIGINS: origins }) });
    assert.equal(config().returnUrlOrigins, null);
    assert.deepEqual(config('https://A.example, http://b.example:8080/,https://c.example:443').returnUrlOrigins, ['https://a.example', 'http://b.example:8080', 'https://c.example']);
    for (const bad of ['a.example', 'https://a.example/path', 'ftp://a.example', 'https://u@a.example', 'https://a.example?x=1']) assert.throws(() => config(bad), ConfigError, bad);
  });

  test('shop domains only in Shopify\'s form <name>.myshopify.com: anything else is 400', async () => {
    const s = await ownerWithStore(api);
    const bad = ['victim.example.com', '127.0.0.1', 'localhost:8080', 'shop.myshopify.com.attacker.example', '-shop.myshopify.com', 'sh_op.myshopify.com', 'a.b.myshopify.com', 'shop.myshopify.com/admin', 'shop.myshopify.com%00'];
    for (const shop of bad) {
      const res = await api('GET', `${connectors(s.storeId)}/install-url?shop=${encodeURIComponent(shop)}`, { token: s.token });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'shop', shop);
    }
    const [{ n }] = await em().execute('select count(*)::int as n from connectors where store_id = ?', [s.storeId]);
    assert.equal(n, 0);
    const fine = await api('GET', `${connectors(s.storeId)}/install-url?shop=My-Shop-1.myshopify.com`, { token: s.token });
    assert.equal(fine.status, 200, fine.text);
    assert.ok(new URL(fine.body.url).pathname.startsWith('/my-shop-1.myshopify.com/'));
  });
});

describe('Meta callback and ad accounts: bad client input is 400', () => {
  test('a callback with only state is 400 and leaves the state usable', async () => {
    const s = await ownerWithStore(api);
    meta.user = metaUser(3, `stateonly${Date.now()}`);
    const ua = browser();
    const start = await startMeta(ua, s);
    const bare = await ua.fetch(`${svc.url}/v1/integrations/connectors/platform/callback?state=${encodeURIComponent(start.state)}`);
    assert.equal(bare.status, 400, await bare.clone().text());
    assert.equal((await json(bare)).code, 'BAD_REQUEST');
    const empty = await ua.fetch(`${svc.url}/v1/integrations/connectors/platform/callback?state=${encodeURIComponent(start.state)}&code=&error=`);
    assert.equal(empty.status, 400);
    const { callback } = await approve(ua, start.authorizationUrl);
    assert.equal(callback.status, 302, await callback.clone().text());
    assert.equal(callback.headers.get('location'), `${ALLOWED}/ads?status=connected`);
  });

  /** A store connected to a Meta user with `accounts` ad accounts. */
  async function connectedStore(accounts = 30) {
    const store = await ownerWithStore(api);
    meta.user = metaUser(accounts, `accounts${Date.now()}${store.storeId}`);
    const ua = browser();
    const { callback } = await approve(ua, (await startMeta(ua, store)).authorizationUrl);
    assert.equal(callback.status, 302);
    return store;
  }
  const list = (store: Owner, q: string) => api('GET', `${ads(store.storeId)}/ad-accounts${q}`, { token: store.token });

  test('ad-accounts takes ?limit= (1 to 200) and pages with it', async () => {
    const s = await connectedStore();
    const first = await list(s, '?limit=10');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.length, 10);
    assert.ok(first.body.nextCursor);
    const second = await list(s, `?limit=10&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body.data.map((a: any) => a.id), first.body.data.map((a: any) => `act_${Number(a.id.slice(4)) + 10}`));
    const rest = await list(s, `?limit=200&cursor=${encodeURIComponent(second.body.nextCursor)}`);
    assert.equal(rest.body.data.length, 10);
    assert.equal(rest.body.nextCursor, null);
    for (const limit of ['0', '201', '-1', '1.5', 'ten']) {
      const res = await list(s, `?limit=${limit}`);
      assert.equal(res.status, 400, `${limit}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    }
  });

  test("ad-accounts cursors are signed and bound to the store: a forged, altered or another store's cursor is 400, never sent to Meta", async () => {
    const [s, other] = [await connectedStore(75), await connectedStore(75)];
    const first = await list(s, '');
    assert.equal(first.status, 200, first.text);
    const [payload, mac = 'A'] = (first.body.nextCursor as string).split('.');
    const foreign = await list(other, '');
    const forged = [
      'garbage',
      Buffer.from('4').toString('base64url'),
      `${Buffer.from('19').toString('base64url')}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${payload}.${mac}.x`,
      '%%%',
      foreign.body.nextCursor,
    ];
    const metaCalls = meta.calls.length;
    for (const cursor of forged) {
      const res = await list(s, `?cursor=${encodeURIComponent(cursor)}`);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'cursor', cursor);
    }
    assert.equal(meta.calls.length, metaCalls, 'no forged cursor reached Meta');
    assert.equal((await list(s, `?cursor=${encodeURIComponent(first.body.nextCursor)}`)).status, 200);
  });
});
