import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { assertProblem, client, until, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { metaUser, startFakeMeta, type FakeMeta } from './fakes/meta.js';
import { sleep } from './receiver.js';
import { conversionDirectories, sendConversion } from '../src/domains/ads/ads.conversions.js';
import { userAgent } from './user-agent.js';

let svc: TestService;
let api: Api;
let meta: FakeMeta;

before(async () => {
  meta = await startFakeMeta();
  svc = await startTestService({ SOUK_META_GRAPH_URL: meta.url, SOUK_META_APP_ID: meta.appId, SOUK_META_APP_SECRET: meta.appSecret, SOUK_RETURN_URL_ORIGINS: 'https://merchant.example' });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await meta.close();
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
const base = (s: Owner) => `/v1/stores/${s.storeId}/integrations/ads-platform`;
const em = () => svc.service.deps.orm.em.fork();
const sha = (v: string) => createHash('sha256').update(v).digest('hex');
const RETURN = 'https://merchant.example/settings/ads?tab=meta';

const get = (url: string) => fetch(url, { redirect: 'manual' });

/** Starts the flow from the merchant's browser (which keeps the state's cookie for the callback). */
async function startIn(s: Owner, body: unknown = {}) {
  const ua = userAgent(svc.url);
  const res = await ua.fetch(`${svc.url}${base(s)}/oauth/start`, { method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.clone().text());
  return { ua, body: (await res.json()) as { authorizationUrl: string; state: string; expiresAt: string } };
}

/** The whole flow: start, Meta's dialog (the user consents), Meta's redirect to the callback in the same browser. */
async function connect(s: Owner, returnUrl = RETURN) {
  meta.user = metaUser(75, `u${Math.random().toString().slice(2, 12)}`);
  const start = await startIn(s, { returnUrl });
  const dialog = await get(start.body.authorizationUrl);
  assert.equal(dialog.status, 302);
  const callback = await start.ua.fetch(dialog.headers.get('location')!);
  return { start: start.body, callbackUrl: dialog.headers.get('location')!, callback, user: meta.user, ua: start.ua };
}

async function capiStore() {
  const s = await ownerWithStore(api);
  const c = await connect(s);
  assert.equal(c.callback.status, 302);
  const res = await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { adAccountId: 'act_1000', pixelId: '998877', conversionsApi: { enabled: true } } });
  assert.equal(res.status, 200, res.text);
  return { ...s, user: c.user };
}

const ADDRESS = { country: 'DZ', address: 'Cité 5 Juillet', communeName: 'Bordj El Kiffan', wilayaCode: '16' };

async function newOrder(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: { customerName: 'Amina Benali', customerPhone: '0555 12 34 56', shippingAddress: ADDRESS, items: [{ name: 'Tea', quantity: 2, price: 1250 }], ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const eventsOf = (orderId: string) => meta.events.flatMap((e) => e.data.map((d) => ({ ...d, pixelId: e.pixelId, token: e.token }))).filter((d) => d.custom_data.order_id === orderId);
const someEvents = (orderId: string) => {
  const found = eventsOf(orderId);
  return found.length ? found : null;
};
const conversions = (storeId: string, orderId: string) =>
  em().execute('select event_id, status, attempts, last_error from ads_conversions where store_id = ? and order_id = ? order by event_id', [storeId, orderId]);

describe('OAuth connection', () => {
  test('start → dialog → callback: connected, long-lived token encrypted at rest and never returned', async () => {
    const s = await ownerWithStore(api);
    const before = await api('GET', base(s), { token: s.token });
    assert.equal(before.status, 200, before.text);
    assert.equal(before.body.status, 'disconnected');
    assert.deepEqual(before.body.settings.conversionsApi.eventMap, { created: 'Lead', confirmed: 'Purchase' });

    const { start, callback, user } = await connect(s);
    const auth = new URL(start.authorizationUrl);
    assert.equal(auth.origin + auth.pathname, `${meta.url}/dialog/oauth`);
    assert.equal(auth.searchParams.get('client_id'), meta.appId);
    assert.equal(auth.searchParams.get('redirect_uri'), `${svc.url}/v1/integrations/connectors/platform/callback`);
    assert.equal(auth.searchParams.get('state'), start.state);
    assert.ok(new Date(start.expiresAt).getTime() - Date.now() <= 10 * 60_000 + 1000);
    assert.equal(callback.status, 302);
    const back = new URL(callback.headers.get('location')!);
    assert.equal(back.origin + back.pathname, 'https://merchant.example/settings/ads');
    assert.equal(back.searchParams.get('tab'), 'meta');
    assert.equal(back.searchParams.get('status'), 'connected');

    const conn = await api('GET', base(s), { token: s.token });
    assert.equal(conn.body.status, 'connected');
    assert.deepEqual(conn.body.account, { id: user.id, name: user.name });
    assert.deepEqual(conn.body.grantedScopes, user.scopes);
    // The long-lived token (60 days), not the short one.
    assert.ok(new Date(conn.body.tokenExpiresAt).getTime() > Date.now() + 59 * 86_400_000);

    const longTokens = [...meta.tokens].filter(([, t]) => t.user === user && t.long).map(([v]) => v);
    assert.equal(longTokens.length, 1);
    const [row] = await em().execute('select token_enc from ads_connections where store_id = ?', [s.storeId]);
    assert.ok(row.token_enc.startsWith('v1.'));
    const everything = [conn.text, (await api('GET', `/v1/stores/${s.storeId}/integrations`, { token: s.token })).text, JSON.stringify(row)];
    for (const [value] of [...meta.tokens].filter(([, t]) => t.user === user)) for (const text of everything) assert.ok(!text.includes(value), 'a Meta token leaked');
  });

  test('the state is single-use and expires; unknown, replayed and expired states get one identical 401', async () => {
    const s = await ownerWithStore(api);
    const { callbackUrl, callback } = await connect(s);
    assert.equal(callback.status, 302);
    // With the member's own token: the replay is refused for the spent state, not a missing browser binding.
    const replay = await fetch(callbackUrl, { redirect: 'manual', headers: { authorization: `Bearer ${s.token}` } });
    const unknown = await get(`${svc.url}/v1/integrations/connectors/platform/callback?code=abc&state=nope`);
    const missing = await get(`${svc.url}/v1/integrations/connectors/platform/callback?code=abc`);
    // A fresh flow whose state outlived its 10 minutes.
    const start = await api('POST', `${base(s)}/oauth/start`, { token: s.token, body: {} });
    await em().execute(`update oauth_states set expires_at = now() - interval '1 second' where store_id = ? and used_at is null`, [s.storeId]);
    const dialog = await get(start.body.authorizationUrl);
    const expired = await get(dialog.headers.get('location')!);
    const bodies = [];
    for (const r of [replay, unknown, missing, expired]) {
      assert.equal(r.status, 401);
      assert.equal(r.headers.get('location'), null);
      assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
      bodies.push(await r.text());
    }
    assert.equal(new Set(bodies).size, 1);
    assert.equal(JSON.parse(bodies[0]).code, 'UNAUTHENTICATED');
  });

  test('the user declines: 302 back with status=denied, still disconnected; default return URL is the dashboard', async () => {
    const s = await ownerWithStore(api);
    meta.deny = true;
    try {
      const start = await startIn(s);
      const dialog = await get(start.body.authorizationUrl);
      const callback = await start.ua.fetch(dialog.headers.get('location')!);
      assert.equal(callback.status, 302);
      assert.equal(callback.headers.get('location'), `${svc.url}/dashboard?status=denied`);
    } finally {
      meta.deny = false;
    }
    assert.equal((await api('GET', base(s), { token: s.token })).body.status, 'disconnected');
  });

  test('DELETE /oauth revokes at Meta and wipes the token: 204, disconnected, ad accounts 409', async () => {
    const s = await ownerWithStore(api);
    const { user } = await connect(s);
    const del = await api('DELETE', `${base(s)}/oauth`, { token: s.token });
    assert.equal(del.status, 204, del.text);
    assert.equal(del.text, '');
    assert.ok([...meta.tokens.values()].filter((t) => t.user === user).every((t) => t.revoked), 'revoked at Meta');
    assert.deepEqual(await em().execute('select 1 from ads_connections where store_id = ?', [s.storeId]), []);
    assert.equal((await api('GET', base(s), { token: s.token })).body.status, 'disconnected');
    assertProblem(await api('GET', `${base(s)}/ad-accounts`, { token: s.token }), 409, 'CONFLICT');
    assert.equal((await api('DELETE', `${base(s)}/oauth`, { token: s.token })).status, 204);
  });

  test('a bad returnUrl is 400; roles: viewers read, editors may not connect, non-members see 404', async () => {
    const s = await ownerWithStore(api);
    assertProblem(await api('POST', `${base(s)}/oauth/start`, { token: s.token, body: { returnUrl: 'javascript:alert(1)' } }), 400, 'VALIDATION_FAILED');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assert.equal((await api('GET', base(s), { token: viewer.token })).status, 200);
    assertProblem(await api('POST', `${base(s)}/oauth/start`, { token: editor.token, body: {} }), 403, 'FORBIDDEN');
    assertProblem(await api('PATCH', `${base(s)}/ads/settings`, { token: editor.token, body: { pixelId: '1' } }), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', `${base(s)}/oauth`, { token: viewer.token }), 403, 'FORBIDDEN');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('GET', base(s), { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', base(s)), 401, 'UNAUTHENTICATED');
  });
});

describe('ad accounts and settings', () => {
  test('ad accounts page by cursor; 409 before connecting', async () => {
    const s = await ownerWithStore(api);
    assertProblem(await api('GET', `${base(s)}/ad-accounts`, { token: s.token }), 409, 'CONFLICT');
    await connect(s);
    const first = await api('GET', `${base(s)}/ad-accounts`, { token: s.token });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.length, 50);
    assert.deepEqual(first.body.data[0], { id: 'act_1000', name: 'Account 1', currency: 'DZD', status: 'active' });
    assert.ok(first.body.nextCursor);
    const second = await api('GET', `${base(s)}/ad-accounts?cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: s.token });
    assert.equal(second.body.data.length, 25);
    assert.equal(second.body.nextCursor, null);
    assert.equal(new Set([...first.body.data, ...second.body.data].map((a: any) => a.id)).size, 75);
    meta.throttleNext = 1;
    const throttled = await api('GET', `${base(s)}/ad-accounts`, { token: s.token });
    assertProblem(throttled, 429, 'RATE_LIMITED');
    assert.equal(throttled.headers.get('retry-after'), '120');
  });

  test("settings: another user's ad account → 400; CAPI needs a pixel; the CAPI token is write-only", async () => {
    const s = await ownerWithStore(api);
    await connect(s);
    const foreign = await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { adAccountId: 'act_999999' } });
    assertProblem(foreign, 400, 'VALIDATION_FAILED');
    assert.equal(foreign.body.errors[0].path, 'adAccountId');
    const noPixel = await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { conversionsApi: { enabled: true } } });
    assertProblem(noPixel, 400, 'VALIDATION_FAILED');
    assert.equal(noPixel.body.errors[0].path, 'conversionsApi.enabled');
    assertProblem(await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { conversionsApi: { eventMap: { shipped: 'Purchase' } } } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { currency: 'XYZ' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { surprise: 1 } }), 400, 'VALIDATION_FAILED');

    const capiToken = meta.systemToken();
    const ok = await api('PATCH', `${base(s)}/ads/settings`, {
      token: s.token,
      body: { adAccountId: '1001', pixelId: '123456', conversionsApi: { enabled: true, eventMap: { paid: 'Purchase', confirmed: null }, testEventCode: 'TEST42', accessToken: capiToken } },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.settings.adAccountId, 'act_1001');
    assert.equal(ok.body.settings.currency, 'EUR', "the ad account's currency by default");
    assert.equal(ok.body.settings.pixelId, '123456');
    assert.deepEqual(ok.body.settings.conversionsApi.eventMap, { created: 'Lead', paid: 'Purchase' });
    assert.equal(ok.body.settings.conversionsApi.testEventCode, 'TEST42');
    assert.equal(ok.body.settings.conversionsApi.accessToken.set, true);
    assert.equal(ok.body.settings.conversionsApi.accessToken.last4, capiToken.slice(-4));
    assert.ok(!ok.text.includes(capiToken));
    assert.ok(!(await api('GET', `/v1/stores/${s.storeId}/integrations`, { token: s.token })).text.includes(capiToken));
    const cleared = await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { conversionsApi: { accessToken: null, eventMap: null } } });
    assert.equal(cleared.body.settings.conversionsApi.accessToken, null);
    assert.deepEqual(cleared.body.settings.conversionsApi.eventMap, { created: 'Lead', confirmed: 'Purchase' });
  });
});

describe('Conversions API', () => {
  test('created → Lead and confirmed → Purchase, once each, after commit, with hashed user data', async () => {
    const s = await capiStore();
    const order = await newOrder(s);
    const [lead] = await until('the Lead event', () => someEvents(order.id));
    assert.equal(lead.event_name, 'Lead');
    assert.equal(lead.event_id, `${order.id}:created`);
    assert.equal(lead.pixelId, '998877');
    assert.equal(lead.action_source, 'system_generated');
    assert.deepEqual(lead.user_data, { ph: [sha('213555123456')], fn: [sha('amina')], ln: [sha('benali')], ct: [sha('bordjelkiffan')], country: [sha('dz')] });
    assert.equal(lead.custom_data.value, 2500);
    assert.equal(lead.custom_data.currency, 'DZD');
    const raw = JSON.stringify(meta.events);
    assert.ok(!raw.includes('555') && !raw.includes('Amina'), 'user data goes hashed');

    // Many confirmations at once: one order confirmation, one Purchase.
    const confirms = await Promise.all(Array.from({ length: 8 }, () => api('POST', `/v1/stores/${s.storeId}/orders/${order.id}/confirm`, { token: s.token })));
    for (const c of confirms) assert.ok([200, 409].includes(c.status), c.text);
    await until('the Purchase event', () => eventsOf(order.id).some((e) => e.event_name === 'Purchase'));
    // Away and back: confirmedAt is set once, so no second Purchase.
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { status: 'processing' } });
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { status: 'confirmed' } });
    await sleep(2500);
    assert.deepEqual(eventsOf(order.id).map((e) => e.event_id).sort(), [`${order.id}:confirmed`, `${order.id}:created`]);
    assert.deepEqual((await conversions(s.storeId, order.id)).map((r: any) => [r.event_id, r.status]), [[`${order.id}:confirmed`, 'sent'], [`${order.id}:created`, 'sent']]);
    const conn = await api('GET', base(s), { token: s.token });
    assert.equal(conn.body.conversions.sent24h, 2);
    assert.equal(conn.body.conversions.failed24h, 0);
  });

  test('confirming many orders in parallel, many times: exactly one Purchase each', async () => {
    const s = await capiStore();
    const orders = await Promise.all(Array.from({ length: 5 }, () => newOrder(s)));
    const answers = await Promise.all(orders.flatMap((o) => Array.from({ length: 4 }, () => api('POST', `/v1/stores/${s.storeId}/orders/${o.id}/confirm`, { token: s.token }))));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    await until('every Purchase', () => orders.every((o) => eventsOf(o.id).some((e) => e.event_name === 'Purchase')));
    await sleep(2000);
    for (const o of orders) assert.equal(eventsOf(o.id).filter((e) => e.event_name === 'Purchase').length, 1);
  });

  test('a rolled-back write queues nothing; inbound writes and stores without CAPI send nothing', async () => {
    const s = await capiStore();
    const product = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Rare', price: 10, stock: 0 } });
    const order = await newOrder(s, { items: [{ productId: product.body.id, quantity: 1 }] });
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/orders/${order.id}/confirm`, { token: s.token }), 409, 'CONFLICT');
    const inbound = await newOrder(s, { metadata: { connector: { integrationSource: 'inbound' } } });
    const plain = await ownerWithStore(api);
    const other = await newOrder(plain);
    assert.equal(conversionDirectories.get(svc.service.deps)!.get(plain.storeId), undefined, 'no directory entry: the write path asks nothing');
    await until('the Lead', () => eventsOf(order.id).length);
    await sleep(2000);
    assert.deepEqual((await conversions(s.storeId, order.id)).map((r: any) => r.event_id), [`${order.id}:created`]);
    assert.deepEqual(await conversions(s.storeId, inbound.id), []);
    assert.deepEqual(eventsOf(inbound.id), []);
    assert.deepEqual(await conversions(plain.storeId, other.id), []);
  });

  test('Meta failing: retried with backoff, then sent once; failures show in the connection', async () => {
    const s = await capiStore();
    meta.failNext = 1;
    const order = await newOrder(s);
    const eventId = `${order.id}:created`;
    await until('the failed attempt', async () => (await conversions(s.storeId, order.id))[0]?.status === 'retrying');
    // The job is settled by the queue just after the attempt is recorded.
    const job = await until('the job to wait for its retry', async () => {
      const [j] = await em().execute(`select state, retry_count, extract(epoch from start_after - now()) as wait from pgboss.job where name = 'ads-conversions' and data->>'eventId' = ?`, [eventId]);
      return j?.state === 'retry' ? j : null;
    });
    assert.ok(Number(job.wait) >= 10, `backoff: the retry waits ${job.wait} s`);
    const failing = await api('GET', base(s), { token: s.token });
    assert.equal(failing.body.conversions.failed24h, 1);
    assert.match(failing.body.conversions.lastError, /unexpected error/);
    // Time passes: the retry is due now.
    await em().execute(`update pgboss.job set start_after = now() where name = 'ads-conversions' and data->>'eventId' = ?`, [eventId]);
    await until('the retried event', () => eventsOf(order.id).length, 20_000);
    const [row] = await conversions(s.storeId, order.id);
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 2);
    assert.equal(eventsOf(order.id).length, 1);
    const healed = await api('GET', base(s), { token: s.token });
    assert.equal(healed.body.conversions.sent24h, 1);
    assert.equal(healed.body.conversions.failed24h, 0);
  });

  test('the own CAPI token is used when set; error 190 on the connection token → expired', async () => {
    const s = await capiStore();
    const capiToken = meta.systemToken();
    await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { conversionsApi: { accessToken: capiToken, testEventCode: 'TEST9' } } });
    const a = await newOrder(s);
    const [sent] = await until('the Lead', () => someEvents(a.id));
    assert.equal(sent.token, capiToken);
    assert.equal(meta.events.find((e) => e.data[0].custom_data.order_id === a.id)?.testEventCode, 'TEST9');

    await api('PATCH', `${base(s)}/ads/settings`, { token: s.token, body: { conversionsApi: { accessToken: null, testEventCode: null } } });
    meta.expire(s.user.id);
    const b = await newOrder(s);
    await until('the refused event', async () => (await conversions(s.storeId, b.id))[0]?.status === 'failed');
    const conn = await api('GET', base(s), { token: s.token });
    assert.equal(conn.body.status, 'expired');
    assert.match(conn.body.conversions.lastError, /code 190/);
    assertProblem(await api('GET', `${base(s)}/ad-accounts`, { token: s.token }), 409, 'CONFLICT');
  });

  test('an event Meta has not accepted within 7 days is given up', async () => {
    const s = await capiStore();
    meta.failNext = 1;
    const order = await newOrder(s);
    await until('the failed attempt', async () => (await conversions(s.storeId, order.id))[0]?.status === 'retrying');
    const later = new Date(Date.now() + 7 * 86_400_000 + 60_000);
    assert.equal(await sendConversion(svc.service.deps, s.storeId, `${order.id}:created`, later), 'failed');
    const [row] = await conversions(s.storeId, order.id);
    assert.equal(row.status, 'failed');
    assert.match(row.last_error, /7 days/);
    assert.equal(await sendConversion(svc.service.deps, s.storeId, `${order.id}:created`), 'skipped', 'a settled event is not sent again');
    assert.deepEqual(eventsOf(order.id), []);
  });
});

describe('not configured', () => {
  test('without the Meta app: 503 NOT_CONFIGURED to start, reads still work', async () => {
    const bare = await startTestService();
    try {
      const bareApi = client(bare.url);
      const s = await ownerWithStore(bareApi);
      assertProblem(await bareApi('POST', `/v1/stores/${s.storeId}/integrations/ads-platform/oauth/start`, { token: s.token, body: {} }), 503, 'NOT_CONFIGURED');
      assert.equal((await bareApi('GET', `/v1/stores/${s.storeId}/integrations/ads-platform`, { token: s.token })).body.status, 'disconnected');
      assertProblem(await bareApi('GET', `/v1/stores/${s.storeId}/integrations/connectors/platform/install-url?shop=a.myshopify.com`, { token: s.token }), 503, 'NOT_CONFIGURED');
      const cb = await get(`${bare.url}/v1/integrations/connectors/platform/callback?state=x&code=y`);
      assert.equal(cb.status, 401);
    } finally {
      await bare.close();
    }
  });
});
