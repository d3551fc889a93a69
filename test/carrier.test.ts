import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { assertProblem, client, freshDatabase, memberWithRole, ownerWithStore, type Api, type TestService } from './helpers.js';
import { postWebhook, startFakeYalidine, webhookBatch, type FakeYalidine } from './fakes/yalidine.js';
import { CARRIER_POLL_QUEUE, pollQuietParcels } from '../src/domains/carrier/carrier.poller.js';
import { YalidineCarrier } from '../src/providers/yalidine/yalidine.js';
import { CarrierError } from '../src/providers/carrier.js';

let svc: TestService;
let api: Api;
let fake: FakeYalidine;

const API_ID = 'yal-test-id';
const API_TOKEN = 'yal-test-token-0123456789abcdef';
const SECRET = 'yalidine-webhook-secret-6f1c2a';
const PUBLIC_URL = 'https://souk.example';

/** Every line the service logs (requests included): secrets must never appear in one. */
let logged: string[] = [];

/** The test service, logging at info into `logged`. */
async function loggedService(env: Record<string, string>): Promise<TestService> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-carrier-'));
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged.push(String(chunk));
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SOUK_DATA_DIR: dataDir,
    PORT: '0',
    SOUK_AUTH_RATE_LIMIT: '100000',
    SOUK_AUTH_RATE_LIMIT_IP: '100000',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  const service = await startService(config, { log: pino({ level: 'info' }, sink) });
  return {
    service,
    url: service.url,
    databaseUrl: db.url,
    dataDir,
    async close() {
      await service.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

before(async () => {
  fake = await startFakeYalidine();
  svc = await loggedService({ SOUK_YALIDINE_URL: fake.url, SOUK_PUBLIC_URL: PUBLIC_URL });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await fake.close();
});
afterEach(() => {
  fake.resetQuota();
  fake.failing = false;
  fake.dropCreates = 0;
  fake.createDelayMs = 0;
  for (const line of logged) {
    for (const secret of [API_TOKEN, SECRET, 'wrong-token-abcdefghijk']) assert.ok(!line.includes(secret), `a secret reached the log: ${line}`);
  }
  logged = [];
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const base = (s: Owner) => `/v1/stores/${s.storeId}/integrations/carrier`;
const em = () => svc.service.deps.orm.em.fork();

async function carrierStore(opts: { token?: string; config?: Record<string, unknown>; webhook?: boolean } = {}): Promise<Owner> {
  const s = await ownerWithStore(api);
  const res = await api('PUT', `/v1/stores/${s.storeId}/integrations/carrier`, {
    token: s.token,
    body: { provider: 'yalidine', config: { apiId: API_ID, fromWilaya: 16, ...(opts.config ?? {}) }, secrets: { apiToken: opts.token ?? API_TOKEN } },
  });
  assert.equal(res.status, 201, res.text);
  if (opts.webhook !== false) {
    const hook = await api('PUT', `${base(s)}/webhook`, { token: s.token, body: { secret: SECRET } });
    assert.equal(hook.status, 200, hook.text);
  }
  return s;
}

const ADDRESS = { country: 'DZ', address: 'Cité 5 Juillet, bloc 3', communeId: '1630', communeName: 'Bordj El Kiffan', wilayaCode: '16' };

async function newOrder(s: Owner, opts: { phone?: string | null; address?: Record<string, unknown> | null; name?: string } = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: {
      customerName: opts.name ?? 'Amina Benali',
      ...(opts.phone === null ? {} : { customerPhone: opts.phone ?? '0555123456' }),
      items: [{ name: 'Tea', quantity: 2, price: 1250 }, { name: 'Cup', quantity: 1, price: 500 }],
    },
  });
  assert.equal(res.status, 201, res.text);
  const address = opts.address === undefined ? ADDRESS : opts.address;
  if (address) await em().execute('update orders set shipping_address = ?::jsonb where id = ?', [JSON.stringify(address), res.body.id]);
  return res.body;
}

const send = (s: Owner, body: Record<string, unknown>, token = s.token) => api('POST', `${base(s)}/send`, { token, body });
const getOrder = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/orders/${id}`, { token: s.token })).body;
const parcelsOf = async (s: Owner, orderId: string) => (await api('GET', `${base(s)}/parcels?orderId=${orderId}`, { token: s.token })).body.data as any[];
const getParcel = async (s: Owner, id: string) => (await api('GET', `${base(s)}/parcels/${id}`, { token: s.token })).body;

async function lastSeq(s: Owner): Promise<number> {
  const [row] = await em().execute('select coalesce(max(seq), 0) as seq from store_events where store_id = ?', [s.storeId]);
  return Number(row.seq);
}
async function orderUpdatesSince(s: Owner, seq: number): Promise<any[]> {
  const res = await api('GET', `/v1/stores/${s.storeId}/events?after=${seq}&events=orderUpdated&limit=200`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

const hookUrl = (storeId: string) => `${svc.url}/v1/stores/${storeId}/integrations/carrier/webhook`;
const deliver = (s: Owner, type: string, events: any[], secret = SECRET) => postWebhook(hookUrl(s.storeId), webhookBatch(type, events, secret));

async function shipped(s: Owner, opts: Parameters<typeof newOrder>[1] = {}) {
  const order = await newOrder(s, opts);
  const res = await send(s, { orderId: order.id });
  assert.equal(res.status, 201, res.text);
  return { order, parcel: res.body };
}

describe('reference data', () => {
  test('wilayas (= states): 58, each {code, name, deliverable}, cached', async () => {
    const s = await carrierStore();
    const res = await api('GET', `${base(s)}/wilayas`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 58);
    assert.deepEqual(res.body.data.find((w: any) => w.code === '16'), { code: '16', name: 'Alger', deliverable: true });
    assert.equal(res.body.data.find((w: any) => w.code === '54').deliverable, false);
    const calls = fake.calls.length;
    const states = await api('GET', `${base(s)}/states`, { token: s.token });
    assert.deepEqual(states.body, res.body);
    assert.equal(fake.calls.length, calls, 'served from the cache');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assert.equal((await api('GET', `${base(s)}/wilayas`, { token: viewer.token })).status, 200);
  });

  test('communes (= cities) of a wilaya with their stop desks', async () => {
    const s = await carrierStore();
    const res = await api('GET', `${base(s)}/communes?wilaya=16`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    const bek = res.body.data.find((c: any) => c.name === 'Bordj El Kiffan');
    assert.deepEqual(bek, { id: '1630', name: 'Bordj El Kiffan', wilayaCode: '16', deliverable: true, stopDesks: [{ id: '163001', name: 'Centre Bordj El Kiffan', address: 'Rue du centre, Bordj El Kiffan' }] });
    assert.ok(res.body.data.every((c: any) => c.wilayaCode === '16'));
    const cities = await api('GET', `${base(s)}/cities?wilaya=16`, { token: s.token });
    assert.deepEqual(cities.body, res.body);
    assert.deepEqual((await api('GET', `${base(s)}/communes?wilaya=60`, { token: s.token })).body, { data: [] }, 'codes up to 69 are accepted');
    for (const bad of ['70', '0', 'alger']) {
      const r = await api('GET', `${base(s)}/communes?wilaya=${bad}`, { token: s.token });
      assertProblem(r, 400, 'VALIDATION_FAILED');
      assert.equal(r.body.errors[0].path, 'wilaya');
    }
  });

  test('fees per commune from the configured wilaya, and a quote with the oversize fee', async () => {
    const s = await carrierStore();
    const res = await api('GET', `${base(s)}/fees?to=16&commune=1630&weightKg=7`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.find((f: any) => f.communeId === '1630'), { communeId: '1630', home: 400, stopDesk: 200 });
    assert.deepEqual(res.body.data.find((f: any) => f.communeId === '1602'), { communeId: '1602', home: 400, stopDesk: null });
    assert.deepEqual(res.body.quote, { communeId: '1630', home: 500, stopDesk: 300, weightKg: 7, oversizeFee: 100 });
    const call = fake.calls.filter((c) => c.path === '/fees').at(-1)!;
    assert.equal(call.query.get('from_wilaya_id'), '16');
    assert.equal(call.query.get('to_wilaya_id'), '16');
    assert.equal((await api('GET', `${base(s)}/fees?to=31`, { token: s.token })).body.quote, null);
    assertProblem(await api('GET', `${base(s)}/fees`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base(s)}/fees?to=99`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base(s)}/fees?to=16&commune=9999`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base(s)}/fees?to=16&weightKg=-1`, { token: s.token }), 400, 'VALIDATION_FAILED');
  });

  test('without a carrier integration: 503 NOT_CONFIGURED', async () => {
    const s = await ownerWithStore(api);
    assertProblem(await api('GET', `${base(s)}/wilayas`, { token: s.token }), 503, 'NOT_CONFIGURED');
    const order = await newOrder(s);
    assertProblem(await send(s, { orderId: order.id }), 503, 'NOT_CONFIGURED');
    const c = await carrierStore();
    await api('PATCH', `/v1/stores/${c.storeId}/integrations/carrier`, { token: c.token, body: { enabled: false } });
    assertProblem(await api('GET', `${base(c)}/fees?to=16`, { token: c.token }), 503, 'NOT_CONFIGURED');
  });
});

describe('POST /send', () => {
  test('201 Parcel; the order gains its fulfillment in exactly one orderUpdated', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    const seq = await lastSeq(s);
    const res = await send(s, { orderId: order.id });
    assert.equal(res.status, 201, res.text);
    const p = res.body;
    assert.match(p.id, /^pcl_[0-9a-f]{28}$/);
    const remote = fake.parcelsOf(order.id);
    assert.equal(remote.length, 1);
    assert.deepEqual(
      { orderId: p.orderId, tracking: p.tracking, status: p.status, rawStatus: p.rawStatus, labelUrl: p.labelUrl, deliveryType: p.deliveryType, stopDeskId: p.stopDeskId, codAmount: p.codAmount, paymentStatus: p.paymentStatus },
      { orderId: order.id, tracking: remote[0].tracking, status: 'pending', rawStatus: 'En préparation', labelUrl: remote[0].label, deliveryType: 'home', stopDeskId: null, codAmount: 3000, paymentStatus: null },
    );
    assert.deepEqual(p.history.map((h: any) => [h.status, h.source]), [['pending', 'send']]);
    assert.deepEqual(
      { first: remote[0].firstname, last: remote[0].familyname, commune: remote[0].to_commune_name, wilaya: remote[0].to_wilaya_name, price: remote[0].price, freeshipping: remote[0].freeshipping, products: remote[0].product_list },
      { first: 'Amina', last: 'Benali', commune: 'Bordj El Kiffan', wilaya: 'Alger', price: 3000, freeshipping: 1, products: 'Tea x2, Cup' },
    );
    const updated = await getOrder(s, order.id);
    assert.deepEqual(updated.fulfillment, { parcelId: p.id, tracking: p.tracking, status: 'pending', labelUrl: p.labelUrl });
    const events = await orderUpdatesSince(s, seq);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.order.fulfillment.parcelId, p.id);
    assert.equal(events[0].data.previous_data.fulfillment, null);

    assertProblem(await send(s, { orderId: order.id }), 409, 'CONFLICT');
    assert.equal(fake.parcelsOf(order.id).length, 1);
  });

  test('stop desk delivery, and a recipient that overrides the order', async () => {
    const s = await carrierStore();
    const order = await newOrder(s, { address: null, phone: null });
    const res = await send(s, { orderId: order.id, deliveryType: 'stopdesk', stopDeskId: '163001', recipient: { phone: '0770000000', wilayaCode: '16', communeId: '1630' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.deliveryType, 'stopdesk');
    assert.equal(res.body.stopDeskId, '163001');
    const [remote] = fake.parcelsOf(order.id);
    assert.equal(remote.is_stopdesk, 1);
    assert.equal(remote.stopdesk_id, 163001);
    assert.equal(remote.contact_phone, '0770000000');
    assert.equal(remote.to_commune_name, 'Bordj El Kiffan', 'the commune id is looked up by name');
  });

  test('no phone, no address, a stop desk without id, an unknown order: 4xx and nothing written', async () => {
    const s = await carrierStore();
    const noPhone = await newOrder(s, { phone: null });
    const r1 = await send(s, { orderId: noPhone.id });
    assertProblem(r1, 400, 'VALIDATION_FAILED');
    assert.equal(r1.body.errors[0].path, 'recipient.phone');
    const noAddress = await newOrder(s, { address: null });
    assertProblem(await send(s, { orderId: noAddress.id }), 400, 'VALIDATION_FAILED');
    assertProblem(await send(s, { orderId: noAddress.id, deliveryType: 'stopdesk' }), 400, 'VALIDATION_FAILED');
    assertProblem(await send(s, { orderId: noAddress.id, deliveryType: 'plane' }), 400, 'VALIDATION_FAILED');
    assertProblem(await send(s, { orderId: 'ord_nope' }), 404, 'NOT_FOUND');
    const far = await newOrder(s, { address: { ...ADDRESS, wilayaCode: '54' } });
    assertProblem(await send(s, { orderId: far.id }), 400, 'VALIDATION_FAILED');
    for (const o of [noPhone, noAddress, far]) {
      assert.deepEqual(await parcelsOf(s, o.id), []);
      assert.equal((await getOrder(s, o.id)).fulfillment, null);
    }
  });

  test('a rejected order: 409', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders/${order.id}/reject`, { token: s.token, body: { reason: 'fake' } })).status, 200);
    assertProblem(await send(s, { orderId: order.id }), 409, 'CONFLICT');
    assert.equal(fake.parcelsOf(order.id).length, 0);
  });

  test('a parcel the carrier refuses: 400, no parcel kept, the order can be sent once fixed', async () => {
    const s = await carrierStore();
    const order = await newOrder(s, { address: { ...ADDRESS, communeId: null, communeName: 'Nowhere' } });
    const res = await send(s, { orderId: order.id });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.match(res.body.detail, /to_commune_name is invalid/);
    assert.deepEqual(await parcelsOf(s, order.id), []);
    const fixed = await send(s, { orderId: order.id, recipient: { communeName: 'Hydra' } });
    assert.equal(fixed.status, 201, fixed.text);
  });

  test('editors send; viewers and apps without store.orders may not', async () => {
    const s = await carrierStore();
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const order = await newOrder(s);
    assertProblem(await send(s, { orderId: order.id }, viewer.token), 403, 'FORBIDDEN');
    assert.equal((await send(s, { orderId: order.id }, editor.token)).status, 201);
  });
});

describe('no duplicate parcels', () => {
  test('a double click (20 racing sends) ships once: one 201, the rest 409', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    const before = fake.creations();
    fake.createDelayMs = 300;
    const results = await Promise.all(Array.from({ length: 20 }, () => send(s, { orderId: order.id })));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.status).join(','));
    for (const r of results.filter((r) => r.status !== 201)) assertProblem(r, 409, 'CONFLICT');
    assert.equal(fake.parcelsOf(order.id).length, 1);
    assert.equal(fake.creations() - before, 1);
    assert.equal((await parcelsOf(s, order.id)).length, 1);
  });

  test('a lost answer: 502, and the retry finds the parcel instead of creating another', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    fake.dropCreates = 1;
    const first = await send(s, { orderId: order.id });
    assertProblem(first, 502, 'BAD_GATEWAY');
    assert.equal(fake.parcelsOf(order.id).length, 1, 'the carrier did create it');
    const [creating] = await parcelsOf(s, order.id);
    assert.equal(creating.status, 'creating');
    const before = fake.creations();
    const seq = await lastSeq(s);
    const retries = await Promise.all(Array.from({ length: 20 }, () => send(s, { orderId: order.id })));
    const ok = retries.filter((r) => r.status === 201);
    assert.equal(ok.length, 1, retries.map((r) => r.status).join(','));
    for (const r of retries.filter((r) => r.status !== 201)) assertProblem(r, 409, 'CONFLICT');
    assert.equal(ok[0].body.id, creating.id);
    assert.equal(ok[0].body.tracking, fake.parcelsOf(order.id)[0].tracking);
    assert.equal(ok[0].body.status, 'pending');
    assert.equal(fake.creations(), before, 'the retry looked the parcel up and created nothing');
    assert.equal(fake.parcelsOf(order.id).length, 1);
    assert.equal((await orderUpdatesSince(s, seq)).length, 1);
  });

  test('a timeout at the adapter is a failure of unknown outcome', async () => {
    fake.createDelayMs = 800;
    const adapter = new YalidineCarrier({ baseUrl: fake.url, apiId: API_ID, apiToken: API_TOKEN, timeoutMs: 200 });
    const from = { code: 16, name: 'Alger', deliverable: true };
    await assert.rejects(
      adapter.create([{ orderId: 'ord_timeout', firstName: 'A', lastName: 'B', phone: '0555', address: 'x', fromWilaya: from, toWilaya: from, communeName: 'Hydra', productList: 'x', codAmount: 1, stopDeskId: null }]),
      (err: unknown) => err instanceof CarrierError && err.kind === 'unavailable' && /within 200 ms/.test(err.message),
    );
  });
});

describe('POST /sendMany', () => {
  test('one carrier call; per-order failures listed', async () => {
    const s = await carrierStore();
    const a = await newOrder(s);
    const b = await newOrder(s, { name: 'Karim' });
    const noPhone = await newOrder(s, { phone: null });
    const refused = await newOrder(s, { address: { ...ADDRESS, communeId: null, communeName: 'Nowhere' } });
    const rejected = await newOrder(s);
    await api('POST', `/v1/stores/${s.storeId}/orders/${rejected.id}/reject`, { token: s.token, body: {} });
    const before = fake.creations();
    const res = await api('POST', `${base(s)}/sendMany`, { token: s.token, body: { orderIds: [a.id, b.id, noPhone.id, 'ord_missing', refused.id, rejected.id, a.id] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((p: any) => p.orderId).sort(), [a.id, b.id].sort());
    assert.ok(res.body.data.every((p: any) => p.status === 'pending' && p.tracking));
    const failed = Object.fromEntries(res.body.failed.map((f: any) => [f.orderId, f.code]));
    assert.deepEqual(failed, { [noPhone.id]: 'VALIDATION_FAILED', ord_missing: 'NOT_FOUND', [refused.id]: 'VALIDATION_FAILED', [rejected.id]: 'CONFLICT' });
    assert.equal(fake.creations() - before, 1, 'one carrier call');
    assert.equal((fake.calls.filter((c) => c.path === '/parcels' && c.method === 'POST').at(-1)!.body as unknown[]).length, 3);
    assert.deepEqual(await parcelsOf(s, refused.id), []);
    const again = await api('POST', `${base(s)}/sendMany`, { token: s.token, body: { orderIds: [a.id] } });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.failed.map((f: any) => f.code), ['CONFLICT']);
    assertProblem(await api('POST', `${base(s)}/sendMany`, { token: s.token, body: { orderIds: [] } }), 400, 'VALIDATION_FAILED');
    const many = Array.from({ length: 101 }, (_, i) => `ord_${i}`);
    assertProblem(await api('POST', `${base(s)}/sendMany`, { token: s.token, body: { orderIds: many } }), 400, 'VALIDATION_FAILED');
  });
});

describe('provider failures', () => {
  test('refused credentials: 502 BAD_GATEWAY and the integration becomes error; nothing half-written', async () => {
    const s = await carrierStore({ token: 'wrong-token-abcdefghijk' });
    const res = await api('GET', `${base(s)}/fees?to=16`, { token: s.token });
    assertProblem(res, 502, 'BAD_GATEWAY');
    assert.ok(!res.text.includes('wrong-token-abcdefghijk'));
    assert.ok(logged.some((l) => l.includes('"status":502')), 'the log is captured (and checked for secrets after each test)');
    const integration = (await api('GET', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token })).body;
    assert.equal(integration.status, 'error');
    assert.match(integration.lastError, /refused/);
    const order = await newOrder(s);
    assertProblem(await send(s, { orderId: order.id }), 502, 'BAD_GATEWAY');
    assert.deepEqual(await parcelsOf(s, order.id), []);
    assert.equal((await getOrder(s, order.id)).fulfillment, null);
  });

  test('rate limited: 429 with Retry-After, and a send leaves no parcel behind', async () => {
    const s = await carrierStore();
    const order = await newOrder(s);
    await api('GET', `${base(s)}/wilayas`, { token: s.token });
    fake.resetQuota(1);
    assert.equal((await api('GET', `${base(s)}/fees?to=16`, { token: s.token })).status, 200);
    const limited = await api('GET', `${base(s)}/fees?to=16`, { token: s.token });
    assertProblem(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    const sent = await send(s, { orderId: order.id });
    assertProblem(sent, 429, 'RATE_LIMITED');
    assert.ok(sent.headers.get('retry-after'));
    assert.deepEqual(await parcelsOf(s, order.id), []);
    fake.resetQuota();
    assert.equal((await send(s, { orderId: order.id })).status, 201);
  });

  test('a carrier failing with 5xx: 502', async () => {
    const s = await carrierStore();
    fake.failing = true;
    assertProblem(await api('GET', `${base(s)}/fees?to=16`, { token: s.token }), 502, 'BAD_GATEWAY');
  });

  test('testConnection: {ok, latencyMs, quota}; the saved credentials set active or error, given ones change nothing', async () => {
    const s = await carrierStore();
    const admin = await memberWithRole(api, s.token, s.storeId, 'admin');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assertProblem(await api('POST', `${base(s)}/testConnection`, { token: editor.token }), 403, 'FORBIDDEN');
    const ok = await api('POST', `${base(s)}/testConnection`, { token: admin.token });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.ok, true);
    assert.ok(Number.isInteger(ok.body.latencyMs) && ok.body.latencyMs >= 0);
    assert.deepEqual(ok.body.quota, { second: 5, minute: 50, hour: 1000, day: 1000 });
    let integration = (await api('GET', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token })).body;
    assert.equal(integration.status, 'active');
    assert.ok(integration.lastSuccessAt);

    const given = await api('POST', `${base(s)}/testConnection`, { token: s.token, body: { credentials: { apiId: API_ID, apiToken: 'wrong-token-abcdefghijk' } } });
    assert.equal(given.status, 200);
    assert.equal(given.body.ok, false);
    assert.ok(!given.text.includes('wrong-token-abcdefghijk'));
    integration = (await api('GET', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token })).body;
    assert.equal(integration.status, 'active');

    await api('PATCH', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token, body: { secrets: { apiToken: 'wrong-token-abcdefghijk' } } });
    const bad = await api('POST', `${base(s)}/testConnection`, { token: s.token, body: {} });
    assert.equal(bad.body.ok, false);
    integration = (await api('GET', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token })).body;
    assert.equal(integration.status, 'error');
  });
});

describe('the carrier webhook', () => {
  test('management: {url, active, hasSecret, lastEventAt}; admin only; the secret never comes back', async () => {
    const s = await carrierStore({ webhook: false });
    const url = `${PUBLIC_URL}/v1/stores/${s.storeId}/integrations/carrier/webhook`;
    const first = await api('GET', `${base(s)}/webhook`, { token: s.token });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { url, active: true, hasSecret: false, lastEventAt: null });
    const put = await api('PUT', `${base(s)}/webhook`, { token: s.token, body: { secret: SECRET } });
    assert.deepEqual(put.body, { url, active: true, hasSecret: true, lastEventAt: null });
    assert.ok(!put.text.includes(SECRET));
    const off = await api('PATCH', `${base(s)}/webhook`, { token: s.token, body: { active: false } });
    assert.deepEqual(off.body, { url, active: false, hasSecret: true, lastEventAt: null });
    const cleared = await api('PATCH', `${base(s)}/webhook`, { token: s.token, body: { secret: null, active: true } });
    assert.deepEqual(cleared.body, { url, active: true, hasSecret: false, lastEventAt: null });
    assertProblem(await api('PUT', `${base(s)}/webhook`, { token: s.token, body: { secret: 'short' } }), 400, 'VALIDATION_FAILED');
    const del = await api('DELETE', `${base(s)}/webhook`, { token: s.token });
    assert.equal(del.status, 204);
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assertProblem(await api('GET', `${base(s)}/webhook`, { token: editor.token }), 403, 'FORBIDDEN');
    assertProblem(await api('PUT', `${base(s)}/webhook`, { token: editor.token, body: { secret: SECRET } }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `${base(s)}/webhook`), 401, 'UNAUTHENTICATED');
  });

  test("Yalidine's endpoint check: a GET carrying crc_token is answered without a bearer", async () => {
    const s = await carrierStore();
    for (const q of ['subscribe&crc_token=abc123', 'crc_token=abc123&subscribe=1', 'crc_token=abc123']) {
      const res = await api('GET', `${base(s)}/webhook?${q}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { crc_token: 'abc123' });
    }
    const res = await api('GET', `/v1/stores/st_000000000000000000000000000/integrations/carrier/webhook?subscribe&crc_token=xyz`);
    assert.deepEqual(res.body, { crc_token: 'xyz' });
  });

  test('a status change moves the parcel, its history, the fulfillment and the order (orderStatusMap), one orderUpdated each', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    let seq = await lastSeq(s);
    const t0 = Date.now();
    const res = await deliver(s, 'parcel_status_updated', [fake.advance(parcel.tracking, 'Expédié', new Date(t0 - 60_000))]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: 1, duplicates: 0 });
    const p = await getParcel(s, parcel.id);
    assert.equal(p.status, 'in_transit');
    assert.equal(p.rawStatus, 'Expédié');
    assert.deepEqual(p.history.map((h: any) => [h.status, h.source]), [['pending', 'send'], ['in_transit', 'webhook']]);
    let o = await getOrder(s, order.id);
    assert.equal(o.status, 'shipped');
    assert.equal(o.fulfillment.status, 'in_transit');
    let events = await orderUpdatesSince(s, seq);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.previous_data.status, 'pending');
    assert.equal(events[0].data.previous_data.fulfillment.status, 'pending');
    assert.equal(events[0].data.order.status, 'shipped');

    seq = await lastSeq(s);
    const delivered = await deliver(s, 'parcel_status_updated', [fake.advance(parcel.tracking, 'Livré', new Date(t0))]);
    assert.deepEqual(delivered.body, { received: 1, duplicates: 0 });
    o = await getOrder(s, order.id);
    assert.equal(o.status, 'delivered');
    assert.ok(o.confirmedAt, 'the status-change path set confirmedAt on reaching a fulfilled kind');
    events = await orderUpdatesSince(s, seq);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.previous_data.status, 'shipped');
    const hook = (await api('GET', `${base(s)}/webhook`, { token: s.token })).body;
    assert.ok(hook.lastEventAt);
  });

  test('a replayed batch changes nothing: 200 {received, duplicates}', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    const batch = webhookBatch('parcel_status_updated', [fake.advance(parcel.tracking, 'Ramassé')], SECRET);
    assert.deepEqual((await postWebhook(hookUrl(s.storeId), batch)).body, { received: 1, duplicates: 0 });
    const before = await getParcel(s, parcel.id);
    const beforeOrder = await getOrder(s, order.id);
    const seq = await lastSeq(s);
    const replays = await Promise.all(Array.from({ length: 20 }, () => postWebhook(hookUrl(s.storeId), batch)));
    for (const r of replays) assert.deepEqual(r.body, { received: 1, duplicates: 1 });
    assert.deepEqual(await getParcel(s, parcel.id), before);
    assert.deepEqual(await getOrder(s, order.id), beforeOrder);
    assert.equal((await orderUpdatesSince(s, seq)).length, 0);
  });

  test('stale and out-of-order events: an event older than the last applied changes nothing', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    const t = Date.now();
    // One batch, newest first: applied oldest first, so the parcel ends delivered.
    const batch = [fake.statusEvent({ tracking: parcel.tracking, order_id: order.id }, 'Livré', new Date(t - 1000)), fake.statusEvent({ tracking: parcel.tracking, order_id: order.id }, 'Expédié', new Date(t - 5000))];
    assert.deepEqual((await deliver(s, 'parcel_status_updated', batch)).body, { received: 2, duplicates: 0 });
    assert.equal((await getParcel(s, parcel.id)).status, 'delivered');
    const before = await getParcel(s, parcel.id);
    const seq = await lastSeq(s);
    const late = await deliver(s, 'parcel_status_updated', [fake.statusEvent({ tracking: parcel.tracking, order_id: order.id }, 'Sorti en livraison', new Date(t - 3000))]);
    assert.deepEqual(late.body, { received: 1, duplicates: 0 });
    assert.deepEqual(await getParcel(s, parcel.id), before);
    assert.equal((await getOrder(s, order.id)).status, 'delivered');
    assert.equal((await orderUpdatesSince(s, seq)).length, 0);
  });

  test('every unverifiable webhook gets the same 401', async () => {
    const s = await carrierStore();
    const { parcel } = await shipped(s);
    const event = fake.advance(parcel.tracking, 'Ramassé');
    const good = webhookBatch('parcel_status_updated', [event], SECRET);
    const noIntegration = await ownerWithStore(api);
    const inactive = await carrierStore();
    await api('PATCH', `${base(inactive)}/webhook`, { token: inactive.token, body: { active: false } });
    const noSecret = await carrierStore({ webhook: false });
    const disabled = await carrierStore();
    await api('PATCH', `/v1/stores/${disabled.storeId}/integrations/carrier`, { token: disabled.token, body: { enabled: false } });
    const cases = [
      postWebhook(hookUrl(s.storeId), { body: good.body, signature: 'ab'.repeat(32) }),
      postWebhook(hookUrl(s.storeId), { body: good.body, signature: null }),
      postWebhook(hookUrl(s.storeId), { body: good.body, signature: 'not-hex' }),
      postWebhook(hookUrl(s.storeId), webhookBatch('parcel_status_updated', [event], 'another-secret-123')),
      postWebhook(hookUrl(s.storeId), { body: good.body.replace('Ramass', 'Ramazz'), signature: good.signature }),
      postWebhook(hookUrl('st_unknown'), good),
      postWebhook(hookUrl(noIntegration.storeId), good),
      postWebhook(hookUrl(inactive.storeId), good),
      postWebhook(hookUrl(noSecret.storeId), good),
      postWebhook(hookUrl(disabled.storeId), good),
    ];
    const results = await Promise.all(cases);
    for (const r of results) assert.equal(r.status, 401, r.text);
    assert.equal(new Set(results.map((r) => r.text)).size, 1, 'identical bodies');
    assert.equal(results[0].body.code, 'UNAUTHENTICATED');
    assert.equal((await getParcel(s, parcel.id)).status, 'pending', 'nothing applied');
    const [row] = await em().execute('select count(*)::int as n from carrier_events where store_id = ?', [s.storeId]);
    assert.equal(row.n, 0);
    const malformed = { body: '{"not":"a batch"}', signature: webhookBatch('x', [], SECRET).signature };
    malformed.signature = (await import('node:crypto')).createHmac('sha256', SECRET).update(malformed.body).digest('hex');
    assert.equal((await postWebhook(hookUrl(s.storeId), malformed)).status, 400);
  });

  test('orderStatusMap: a custom map moves the order; a slug the store lacks moves nothing', async () => {
    const s = await carrierStore({ config: { orderStatusMap: { picked_up: 'processing', delivered: 'handed-over' } } });
    const { order, parcel } = await shipped(s);
    await deliver(s, 'parcel_status_updated', [fake.advance(parcel.tracking, 'Ramassé', new Date(Date.now() - 2000))]);
    assert.equal((await getOrder(s, order.id)).status, 'processing');
    await deliver(s, 'parcel_status_updated', [fake.advance(parcel.tracking, 'Expédié', new Date(Date.now() - 1000))]);
    assert.equal((await getOrder(s, order.id)).status, 'processing', 'in_transit is not in this map');
    const seq = await lastSeq(s);
    await deliver(s, 'parcel_status_updated', [fake.advance(parcel.tracking, 'Livré')]);
    const o = await getOrder(s, order.id);
    assert.equal(o.status, 'processing');
    assert.equal(o.fulfillment.status, 'delivered');
    assert.equal((await orderUpdatesSince(s, seq)).length, 1);
  });

  test('cash remitted: the parcel and the order\'s cash-on-delivery payment become paid', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    const seq = await lastSeq(s);
    assert.deepEqual((await deliver(s, 'parcel_payment_updated', [fake.paymentEvent(parcel.tracking, 'receivable')])).body, { received: 1, duplicates: 0 });
    assert.equal((await getParcel(s, parcel.id)).paymentStatus, 'receivable');
    assert.equal((await orderUpdatesSince(s, seq)).length, 0, 'not remitted yet: the order does not change');
    assert.deepEqual((await deliver(s, 'parcel_payment_updated', [fake.paymentEvent(parcel.tracking, 'payed')])).body, { received: 1, duplicates: 0 });
    assert.equal((await getParcel(s, parcel.id)).paymentStatus, 'paid');
    const o = await getOrder(s, order.id);
    assert.equal(o.paymentStatus, 'paid');
    assert.equal(o.status, 'pending', 'the payment moves no status');
    // The payment service's own change path (paid, then the method it records) emits them.
    const events = await orderUpdatesSince(s, seq);
    assert.ok(events.length >= 1);
    assert.equal(events[0].data.previous_data.paymentStatus, 'unpaid');
    assert.equal(events.at(-1).data.order.paymentStatus, 'paid');
    const status = await api('GET', `/v1/orders/${order.id}/payment/status`, { token: s.token });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.payment.provider, 'cod');
    assert.equal(status.body.payment.status, 'paid');
  });

  test('an event for a parcel Souk does not know is recorded and changes nothing', async () => {
    const s = await carrierStore();
    const res = await deliver(s, 'parcel_status_updated', [fake.statusEvent({ tracking: 'yal-NOPE00', order_id: 'elsewhere' }, 'Livré', new Date())]);
    assert.deepEqual(res.body, { received: 1, duplicates: 0 });
  });
});

describe('cancel, statistics, polling', () => {
  test('cancel a pending parcel at the carrier; the order may be sent again', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    const res = await api('POST', `${base(s)}/parcels/${parcel.id}/cancel`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'cancelled');
    assert.equal(fake.parcelsOf(order.id).length, 0);
    assert.equal((await getOrder(s, order.id)).fulfillment.status, 'cancelled');
    const again = await send(s, { orderId: order.id });
    assert.equal(again.status, 201, again.text);
    assert.notEqual(again.body.id, parcel.id);
    await deliver(s, 'parcel_status_updated', [fake.advance(again.body.tracking, 'Ramassé')]);
    assertProblem(await api('POST', `${base(s)}/parcels/${again.body.id}/cancel`, { token: s.token }), 409, 'CONFLICT');
  });

  test('statistics from the store parcels', async () => {
    const s = await carrierStore();
    const a = await shipped(s);
    const b = await shipped(s);
    const c = await shipped(s, { address: { ...ADDRESS, wilayaCode: '31', communeId: null, communeName: 'Oran' } });
    await deliver(s, 'parcel_status_updated', [fake.advance(a.parcel.tracking, 'Livré')]);
    await deliver(s, 'parcel_status_updated', [fake.advance(b.parcel.tracking, 'Retourné au vendeur')]);
    await api('POST', `${base(s)}/parcels/${c.parcel.id}/cancel`, { token: s.token });
    const res = await api('GET', `${base(s)}/statistics`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      byStatus: { delivered: 1, returned: 1, cancelled: 1 },
      deliveredRate: 0.5,
      returnRate: 0.5,
      codCollected: 3000,
      byWilaya: { '16': { total: 2, delivered: 1, returned: 1 }, '31': { total: 1, delivered: 0, returned: 0 } },
    });
    const future = await api('GET', `${base(s)}/statistics?createdAfter=2999-01-01`, { token: s.token });
    assert.deepEqual(future.body, { byStatus: {}, deliveredRate: null, returnRate: null, codCollected: 0, byWilaya: {} });
    assertProblem(await api('GET', `${base(s)}/statistics?createdAfter=yesterday`, { token: s.token }), 400, 'VALIDATION_FAILED');
  });

  test('parcels with no news for 6 h are polled by the scheduled job', async () => {
    const s = await carrierStore();
    const { order, parcel } = await shipped(s);
    const [schedule] = await em().execute(`select cron from pgboss.schedule where name = ?`, [CARRIER_POLL_QUEUE]);
    assert.ok(schedule, 'the poll is scheduled');
    fake.advance(parcel.tracking, 'Sorti en livraison');
    await em().execute(`update parcels set checked_at = now() - interval '5 hours' where id = ?`, [parcel.id]);
    await pollQuietParcels(svc.service.deps);
    assert.equal((await getParcel(s, parcel.id)).status, 'pending', 'five quiet hours are not enough');
    await em().execute(`update parcels set checked_at = now() - interval '7 hours' where id = ?`, [parcel.id]);
    await svc.service.deps.queue!.boss.send(CARRIER_POLL_QUEUE, {});
    const deadline = Date.now() + 40_000;
    let p = await getParcel(s, parcel.id);
    while (p.status !== 'out_for_delivery' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      p = await getParcel(s, parcel.id);
    }
    assert.equal(p.status, 'out_for_delivery');
    assert.equal(p.history.at(-1).source, 'poll');
    assert.equal((await getOrder(s, order.id)).fulfillment.status, 'out_for_delivery');
  });

  test('a creation whose answer was lost is settled by the poll: adopted when the carrier has it, dropped when not', async () => {
    const s = await carrierStore();
    const kept = await newOrder(s);
    const lost = await newOrder(s);
    fake.dropCreates = 2;
    assertProblem(await send(s, { orderId: kept.id }), 502, 'BAD_GATEWAY');
    assertProblem(await send(s, { orderId: lost.id }), 502, 'BAD_GATEWAY');
    fake.parcels.delete(fake.parcelsOf(lost.id)[0].tracking);
    await em().execute(`update parcels set checked_at = now() - interval '7 hours' where store_id = ?`, [s.storeId]);
    const result = await pollQuietParcels(svc.service.deps);
    assert.ok(result.polled >= 2);
    const [p] = await parcelsOf(s, kept.id);
    assert.equal(p.status, 'pending');
    assert.equal(p.tracking, fake.parcelsOf(kept.id)[0].tracking);
    assert.equal((await getOrder(s, kept.id)).fulfillment.parcelId, p.id);
    assert.deepEqual(await parcelsOf(s, lost.id), []);
    assert.equal((await send(s, { orderId: lost.id })).status, 201);
  });

  test('deleting the carrier integration forgets the webhook secret', async () => {
    const s = await carrierStore();
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token })).status, 204);
    assert.equal((await api('GET', `${base(s)}/webhook`, { token: s.token })).body.hasSecret, false);
  });
});
