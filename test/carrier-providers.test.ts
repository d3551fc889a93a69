/**
 * The carriers beyond Yalidine, each against a local fake that speaks its wire shape: the
 * integration (settings, secrets, allow-listed base URLs), fees, sending (and a lost answer),
 * the label, status polling onto parcel and order, and cancelling; then the same carriers
 * through the Feeef face, from its SDK's request shapes.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.js';
import { pollQuietParcels } from '../src/domains/carrier/carrier.poller.js';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import type { CarrierFake } from './fakes/carrier-fake.js';
import { assertFeeefProblem, feeefStore } from './feeef-helpers.js';
import { startFakeEcotrack, type FakeEcotrack } from './fakes/ecotrack.js';
import { startFakeNoest, type FakeNoest } from './fakes/noest.js';
import { startFakeProcolis, type FakeProcolis } from './fakes/procolis.js';
import { startFakeZimou, type FakeZimou } from './fakes/zimou.js';

let svc: TestService;
let api: Api;
let ecotrack: FakeEcotrack;
let procolis: FakeProcolis;
let noest: FakeNoest;
let zimou: FakeZimou;
const fakes = (): CarrierFake[] => [ecotrack, procolis, noest, zimou];

before(async () => {
  [ecotrack, procolis, noest, zimou] = await Promise.all([startFakeEcotrack(), startFakeProcolis(), startFakeNoest(), startFakeZimou()]);
  svc = await startTestService({
    SOUK_ECOTRACK_ORIGINS: `https://*.ecotrack.dz,${ecotrack.origin}`,
    SOUK_PROCOLIS_URL: `${procolis.origin}/api_v1`,
    SOUK_NOEST_URL: noest.origin,
    SOUK_ZIMOU_URL: zimou.origin,
  });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  for (const f of fakes()) await f.close();
});
afterEach(() => {
  for (const f of fakes()) {
    f.failing = false;
    f.limited = false;
    f.dropCreates = 0;
  }
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
const base = (s: Owner) => `/v1/stores/${s.storeId}/integrations/carrier`;
const deps = () => svc.service.deps;
const ADDRESS = { country: 'DZ', address: 'Cité 5 Juillet, bloc 3', communeName: 'Bordj El Kiffan', wilayaCode: '16' };

async function carrierStore(body: Record<string, unknown>): Promise<Owner> {
  const s = await ownerWithStore(api);
  const res = await api('PUT', base(s), { token: s.token, body });
  assert.equal(res.status, 201, res.text);
  return s;
}

async function newOrder(s: Owner, address: Record<string, unknown> = ADDRESS) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: { customerName: 'Amina Benali', customerPhone: '0555123456', items: [{ name: 'Tea', quantity: 2, price: 1250 }, { name: 'Cup', quantity: 1, price: 500 }] },
  });
  assert.equal(res.status, 201, res.text);
  await deps().orm.em.fork().execute('update orders set shipping_address = ?::jsonb where id = ?', [JSON.stringify(address), res.body.id]);
  return res.body;
}

const send = (s: Owner, body: Record<string, unknown>) => api('POST', `${base(s)}/send`, { token: s.token, body });
const getOrder = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/orders/${id}`, { token: s.token })).body;
let pollDay = 0;
/** A poll run as if the parcels had been quiet for a day (each run a day after the previous one). */
const pollLater = () => pollQuietParcels(deps(), new Date(Date.now() + ++pollDay * 86_400_000));

describe('Ecotrack', () => {
  const integration = (baseUrl = ecotrack.origin) => ({ provider: 'ecotrack', config: { baseUrl, fromWilaya: 16 }, secrets: { apiToken: ecotrack.token } });
  const store = () => carrierStore(integration());

  test('the base URL is per store, within the allow-list; the default list lets no loopback through', async () => {
    const s = await ownerWithStore(api);
    for (const bad of ['https://evil.example', 'http://dhd.ecotrack.dz', `${ecotrack.origin}/api`, 'https://user:pw@dhd.ecotrack.dz', 'https://ecotrack.dz.evil.example']) {
      const res = await api('PUT', base(s), { token: s.token, body: integration(bad) });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'config.baseUrl', bad);
    }
    assert.equal((await api('PUT', base(s), { token: s.token, body: integration('https://dhd.ecotrack.dz') })).status, 201);
    const missing = await api('PUT', base(s), { token: s.token, body: { provider: 'ecotrack', config: { fromWilaya: 16 } } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'config.baseUrl');
    const foreign = await api('PUT', base(s), { token: s.token, body: { provider: 'ecotrack', config: { baseUrl: 'https://dhd.ecotrack.dz', apiId: 'x', fromWilaya: 16 } } });
    assert.equal(foreign.body.errors[0].path, 'config.apiId');
    const secret = await api('PUT', base(s), { token: s.token, body: { ...integration(), secrets: { apiKey: 'k-0123456789' } } });
    assert.equal(secret.body.errors[0].path, 'secrets.apiKey');
    const defaults = loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: svc.dataDir });
    assert.deepEqual(defaults.ecotrackOrigins, ['https://*.ecotrack.dz']);
    assert.throws(() => loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: svc.dataDir, SOUK_ECOTRACK_ORIGINS: 'ftp://x' }), /SOUK_ECOTRACK_ORIGINS/);
  });

  test('testConnection, wilayas, communes and fees from the tenant', async () => {
    const s = await store();
    const conn = await api('POST', `${base(s)}/testConnection`, { token: s.token });
    assert.equal(conn.status, 200, conn.text);
    assert.equal(conn.body.ok, true);
    assert.deepEqual(conn.body.quota, { second: null, minute: 49, hour: 1499, day: 14999 });
    const wilayas = (await api('GET', `${base(s)}/wilayas`, { token: s.token })).body.data;
    assert.equal(wilayas.length, 56, 'the tenant serves 56 wilayas');
    const communes = (await api('GET', `${base(s)}/communes?wilaya=16`, { token: s.token })).body.data;
    assert.deepEqual(communes.find((c: any) => c.name === 'Bordj El Kiffan'), { id: '1603', name: 'Bordj El Kiffan', wilayaCode: '16', deliverable: true, stopDesks: [{ id: '1603', name: 'Bordj El Kiffan', address: null }] });
    const fees = await api('GET', `${base(s)}/fees?to=31&commune=3102`, { token: s.token });
    assert.equal(fees.status, 200, fees.text);
    assert.deepEqual(fees.body.data, [
      { communeId: '3101', home: 900, stopDesk: 700 },
      { communeId: '3102', home: 900, stopDesk: null },
      { communeId: '3103', home: 900, stopDesk: 700 },
    ]);
    assert.deepEqual(fees.body.quote, { communeId: '3102', home: 900, stopDesk: null, weightKg: 0, oversizeFee: 0 });
    const table = await api('GET', `${base(s)}/wilayaFees`, { token: s.token });
    assert.equal(table.status, 200, table.text);
    assert.equal(table.body.data.length, 56);
    assert.deepEqual(table.body.data.find((r: any) => r.wilayaCode === '16'), { wilayaCode: '16', home: 400, stopDesk: 200 });
    const wrong = await carrierStore({ ...integration(), secrets: { apiToken: 'wrong-token-abcdefghijk' } });
    assert.equal((await api('POST', `${base(wrong)}/testConnection`, { token: wrong.token })).body.ok, false);
  });

  test('send: one order, created once under its reference; label; polled status moves parcel and order; cash remitted', async () => {
    const s = await store();
    const order = await newOrder(s);
    const res = await send(s, { orderId: order.id });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.provider, 'ecotrack');
    assert.equal(res.body.status, 'pending');
    assert.equal(res.body.rawStatus, 'prete_a_expedier');
    const held = ecotrack.ordersOf(order.id);
    assert.equal(held.length, 1);
    assert.equal(held[0].tracking, res.body.tracking);
    assert.equal(held[0].commune, 'Bordj El Kiffan');
    assert.equal(held[0].wilaya_id, 16);
    assert.equal(held[0].montant, '3000');
    assert.equal(held[0].client, 'Amina Benali');
    assertProblem(await send(s, { orderId: order.id }), 409, 'CONFLICT');

    const label = await api('GET', `${base(s)}/parcels/${res.body.id}/label`, { token: s.token });
    assert.equal(label.status, 200, label.text);
    assert.equal(label.body.contentType, 'application/pdf');
    assert.ok(Buffer.from(label.body.data, 'base64').subarray(0, 5).equals(Buffer.from('%PDF-')));

    ecotrack.advance(res.body.tracking, 'en_livraison');
    await pollLater();
    let parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'out_for_delivery');
    assert.equal(parcel.rawStatus, 'en_livraison');
    ecotrack.advance(res.body.tracking, 'paye_et_archive', new Date(Date.now() + 60_000));
    await pollLater();
    parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'delivered');
    assert.equal(parcel.paymentStatus, 'paid');
    const o = await getOrder(s, order.id);
    assert.equal(o.status, 'delivered');
    assert.equal(o.fulfillment.status, 'delivered');
    assert.equal(o.paymentStatus, 'paid');
  });

  test('a lost creation answer: the retry finds the order by reference instead of creating another', async () => {
    const s = await store();
    const order = await newOrder(s);
    ecotrack.dropCreates = 1;
    assertProblem(await send(s, { orderId: order.id }), 502, 'BAD_GATEWAY');
    assert.equal(ecotrack.ordersOf(order.id).length, 1, 'Ecotrack made it');
    const retry = await send(s, { orderId: order.id });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(ecotrack.ordersOf(order.id).length, 1, 'and only once');
    assert.equal(retry.body.tracking, ecotrack.ordersOf(order.id)[0].tracking);
  });

  test('refusals: a commune the tenant lacks is 400 with its message; a rate limit is 429; cancel deletes before shipping', async () => {
    const s = await store();
    const bad = await newOrder(s, { ...ADDRESS, communeName: 'Atlantis' });
    const refused = await send(s, { orderId: bad.id });
    assertProblem(refused, 400, 'VALIDATION_FAILED');
    assert.match(refused.body.detail, /commune/);
    assert.equal(ecotrack.ordersOf(bad.id).length, 0);

    const order = await newOrder(s);
    ecotrack.limited = true;
    const limited = await send(s, { orderId: order.id });
    assertProblem(limited, 429, 'RATE_LIMITED');
    assert.equal(limited.headers.get('retry-after'), '42');
    ecotrack.limited = false;
    const sent = await send(s, { orderId: order.id });
    assert.equal(sent.status, 201, sent.text);
    const cancelled = await api('POST', `${base(s)}/parcels/${sent.body.id}/cancel`, { token: s.token });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(ecotrack.ordersOf(order.id).length, 0);
  });
});

describe('Procolis (ZR Express)', () => {
  const integration = () => ({ provider: 'procolis', config: { fromWilaya: 16 }, secrets: { apiToken: procolis.token, apiKey: procolis.key } });
  const store = () => carrierStore(integration());

  test('both secrets are needed; the price table gives wilayas and fees', async () => {
    const half = await carrierStore({ ...integration(), secrets: { apiToken: procolis.token } });
    const missing = await api('GET', `${base(half)}/wilayas`, { token: half.token });
    assertProblem(missing, 503, 'NOT_CONFIGURED');
    assert.match(missing.body.detail, /secrets\.apiKey/);
    const s = await store();
    const conn = await api('POST', `${base(s)}/testConnection`, { token: s.token });
    assert.equal(conn.body.ok, true, conn.text);
    const wilayas = (await api('GET', `${base(s)}/wilayas`, { token: s.token })).body.data;
    assert.equal(wilayas.length, 55);
    assert.deepEqual(wilayas.find((w: any) => w.code === '16'), { code: '16', name: 'Alger', deliverable: true });
    const table = (await api('GET', `${base(s)}/wilayaFees`, { token: s.token })).body.data;
    assert.deepEqual(table.find((r: any) => r.wilayaCode === '16'), { wilayaCode: '16', home: 400, stopDesk: 300 });
    assert.deepEqual(table.find((r: any) => r.wilayaCode === '31'), { wilayaCode: '31', home: 700, stopDesk: 500 });
    const given = await api('POST', `${base(s)}/testConnection`, { token: s.token, body: { credentials: { apiToken: procolis.token, apiKey: 'wrong-key-0123456789' } } });
    assert.equal(given.body.ok, false);
  });

  test('send under the order id as tracking; a lost answer is found again; polled situations; no label or cancel API', async () => {
    const s = await store();
    const order = await newOrder(s);
    procolis.dropCreates = 1;
    assertProblem(await send(s, { orderId: order.id }), 502, 'BAD_GATEWAY');
    assert.ok(procolis.colis.has(order.id), 'ZR Express made it');
    const creations = procolis.calls.filter((c) => c.path.endsWith('/add_colis')).length;
    const res = await send(s, { orderId: order.id });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.tracking, order.id);
    assert.equal(res.body.rawStatus, 'En Préparation');
    assert.equal(procolis.calls.filter((c) => c.path.endsWith('/add_colis')).length, creations, 'the retry read the parcel back instead of creating it');
    const colis = procolis.colis.get(order.id)!;
    assert.equal(colis.IDWilaya, '16');
    assert.equal(colis.Commune, 'Bordj El Kiffan');
    assert.equal(colis.Total, '3000');
    assert.equal(colis.TypeLivraison, '0');

    const label = await api('GET', `${base(s)}/parcels/${res.body.id}/label`, { token: s.token });
    assertProblem(label, 501, 'NOT_IMPLEMENTED');
    assertProblem(await api('POST', `${base(s)}/parcels/${res.body.id}/cancel`, { token: s.token }), 501, 'NOT_IMPLEMENTED');

    procolis.advance(order.id, 'Livrée [ Encaisser ]');
    await pollLater();
    const parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'delivered');
    assert.equal(parcel.rawStatus, 'Livrée [ Encaisser ]');
    assert.equal(parcel.paymentStatus, 'receivable');
    assert.equal((await getOrder(s, order.id)).status, 'delivered');
  });

  test('a refused parcel is 400 with ZR Express\'s message, and nothing is kept', async () => {
    const s = await store();
    const order = await newOrder(s, { ...ADDRESS, communeName: 'Atlantis' });
    const res = await send(s, { orderId: order.id });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.match(res.body.detail, /Commune non reconnue/);
    assert.equal((await api('GET', `${base(s)}/parcels?orderId=${order.id}`, { token: s.token })).body.data.length, 0);
  });
});

describe('Noest Express', () => {
  const integration = () => ({ provider: 'noest', config: { userGuid: noest.guid, fromWilaya: 16 }, secrets: { apiToken: noest.token } });
  const store = () => carrierStore(integration());

  test('the user GUID is a setting; wilayas, communes and the fee table', async () => {
    const s = await ownerWithStore(api);
    const missing = await api('PUT', base(s), { token: s.token, body: { provider: 'noest', config: { fromWilaya: 16 }, secrets: { apiToken: noest.token } } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'config.userGuid');
    const n = await store();
    assert.equal((await api('POST', `${base(n)}/testConnection`, { token: n.token })).body.ok, true);
    const wilayas = (await api('GET', `${base(n)}/wilayas`, { token: n.token })).body.data;
    assert.equal(wilayas.find((w: any) => w.code === '54').deliverable, false);
    const communes = (await api('GET', `${base(n)}/communes?wilaya=16`, { token: n.token })).body.data;
    assert.deepEqual(communes.map((c: any) => c.id), ['16-Alger Centre', '16-Hydra', '16-Bordj El Kiffan']);
    const fees = (await api('GET', `${base(n)}/fees?to=16`, { token: n.token })).body.data;
    assert.deepEqual(fees[0], { communeId: '16-Alger Centre', home: 450, stopDesk: 350 });
    const table = (await api('GET', `${base(n)}/wilayaFees`, { token: n.token })).body.data;
    assert.deepEqual(table.find((r: any) => r.wilayaCode === '31'), { wilayaCode: '31', home: 750, stopDesk: 550 });
  });

  test('send creates then validates; label; activity events move the parcel and the cash', async () => {
    const s = await store();
    const order = await newOrder(s);
    const res = await send(s, { orderId: order.id });
    assert.equal(res.status, 201, res.text);
    const [held] = noest.ordersOf(order.id);
    assert.equal(held.tracking, res.body.tracking);
    assert.equal(held.validated, true, 'validated, so the logistics company sees it');
    assert.equal(held.commune, 'Bordj El Kiffan');
    assert.equal(held.montant, '3000.00');
    const label = await api('GET', `${base(s)}/parcels/${res.body.id}/label`, { token: s.token });
    assert.equal(label.body.contentType, 'application/pdf', label.text);

    noest.advance(held.tracking, 'fdr_activated');
    await pollLater();
    let parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'out_for_delivery');
    assert.equal(parcel.rawStatus, 'En livraison');
    noest.advance(held.tracking, 'livre', new Date(Date.now() + 60_000));
    noest.advance(held.tracking, 'verssement_admin_cust', new Date(Date.now() + 120_000));
    noest.advance(held.tracking, 'validation_reception_cash_by_partener', new Date(Date.now() + 180_000));
    await pollLater();
    parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'delivered');
    assert.equal(parcel.paymentStatus, 'paid');
    assert.equal((await getOrder(s, order.id)).paymentStatus, 'paid');
    assertProblem(await api('POST', `${base(s)}/parcels/${res.body.id}/cancel`, { token: s.token }), 409, 'CONFLICT');
  });

  test('a refused validation deletes the draft; a lost answer is never sent twice until the merchant cancels', async () => {
    const s = await store();
    const refusedOrder = await newOrder(s);
    noest.refuseValidations = 1;
    const refused = await send(s, { orderId: refusedOrder.id });
    assertProblem(refused, 400, 'VALIDATION_FAILED');
    assert.match(refused.body.detail, /Validation impossible/);
    assert.equal(noest.ordersOf(refusedOrder.id).length, 0, 'the draft was deleted');

    const order = await newOrder(s);
    noest.dropCreates = 1;
    assertProblem(await send(s, { orderId: order.id }), 502, 'BAD_GATEWAY');
    const blind = await send(s, { orderId: order.id });
    assertProblem(blind, 409, 'CONFLICT');
    assert.match(blind.body.detail, /cannot be asked/);
    assert.equal(noest.ordersOf(order.id).length, 1, 'nothing sent again');
    const [creating] = (await api('GET', `${base(s)}/parcels?orderId=${order.id}`, { token: s.token })).body.data;
    assert.equal(creating.status, 'creating');
    const cancelled = await api('POST', `${base(s)}/parcels/${creating.id}/cancel`, { token: s.token });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    const again = await send(s, { orderId: order.id });
    assert.equal(again.status, 201, again.text);
    assert.equal(noest.ordersOf(order.id).filter((o) => o.validated).length, 1);
  });
});

describe('Zimou Express', () => {
  const integration = () => ({ provider: 'zimou', config: { fromWilaya: 16 }, secrets: { apiToken: zimou.token } });
  const store = () => carrierStore(integration());

  test('fees: the lowest partner price of each wilaya', async () => {
    const s = await store();
    assert.equal((await api('POST', `${base(s)}/testConnection`, { token: s.token })).body.ok, true);
    const table = (await api('GET', `${base(s)}/wilayaFees`, { token: s.token })).body.data;
    assert.equal(table.length, 58);
    assert.deepEqual(table.find((r: any) => r.wilayaCode === '16'), { wilayaCode: '16', home: 450, stopDesk: 350 });
    assert.deepEqual(table.find((r: any) => r.wilayaCode === '31'), { wilayaCode: '31', home: 800, stopDesk: 600 });
  });

  test('send one package; label; status ids move parcel and order; cancel while in preparation', async () => {
    const s = await store();
    const order = await newOrder(s);
    const res = await send(s, { orderId: order.id });
    assert.equal(res.status, 201, res.text);
    const [pkg] = zimou.packagesOf(order.id);
    assert.equal(pkg.tracking_code, res.body.tracking);
    assert.equal(pkg.delivery_type, 'Express');
    assert.equal(pkg.price, '3000');
    assert.equal(pkg.commune, 'Bordj El Kiffan');
    assert.equal(res.body.deliveryFee, 450);
    const label = await api('GET', `${base(s)}/parcels/${res.body.id}/label`, { token: s.token });
    assert.equal(label.body.contentType, 'application/pdf', label.text);

    const other = await newOrder(s);
    const second = await send(s, { orderId: other.id });
    const cancelled = await api('POST', `${base(s)}/parcels/${second.body.id}/cancel`, { token: s.token });
    assert.equal(cancelled.body.status, 'cancelled', cancelled.text);
    assert.equal(zimou.packagesOf(other.id).length, 0);

    zimou.advance(pkg.tracking_code, 7);
    await pollLater();
    assert.equal((await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body.status, 'out_for_delivery');
    zimou.advance(pkg.tracking_code, 8, new Date(Date.now() + 60_000));
    await pollLater();
    const parcel = (await api('GET', `${base(s)}/parcels/${res.body.id}`, { token: s.token })).body;
    assert.equal(parcel.status, 'delivered');
    assert.equal(parcel.rawStatus, 'LIVRÉ');
    assert.equal((await getOrder(s, order.id)).status, 'delivered');
  });

  test('a refusal under HTTP 201 is 400; a lost answer is not sent again', async () => {
    const s = await store();
    const bad = await newOrder(s, { ...ADDRESS, communeName: 'Atlantis' });
    const refused = await send(s, { orderId: bad.id });
    assertProblem(refused, 400, 'VALIDATION_FAILED');
    assert.match(refused.body.detail, /Commune introuvable/);
    const order = await newOrder(s);
    zimou.dropCreates = 1;
    assertProblem(await send(s, { orderId: order.id }), 502, 'BAD_GATEWAY');
    assertProblem(await send(s, { orderId: order.id }), 409, 'CONFLICT');
    assert.equal(zimou.packagesOf(order.id).length, 1);
  });
});

describe("the Feeef SDK's integrations calls, as its axios client sends them", () => {
  /** A Feeef store whose carrier integration is `body`; the /v1 client shares its token. */
  async function feeefCarrier(body: Record<string, unknown>) {
    const owner = await feeefStore(svc.url);
    const s = { ...owner, storeId: owner.storeId } as Owner;
    const res = await api('PUT', base(s), { token: owner.token, body });
    assert.equal(res.status, 201, res.text);
    return { ...owner, s };
  }

  test('ecotrack().getDeliveryFees and getStatistics', async () => {
    const { ff, storeId, s } = await feeefCarrier({ provider: 'ecotrack', config: { baseUrl: ecotrack.origin, fromWilaya: 16 }, secrets: { apiToken: ecotrack.token } });
    const fees = await ff.get(`/stores/${storeId}/integrations/ecotrack/fees`, { baseUrl: 'https://sdk.ecotrack.dz', token: 'sdk-token-ignored' });
    assert.equal(fees.status, 200, fees.text);
    assert.equal(fees.data.length, 58);
    assert.deepEqual(fees.data[15], [200, 400], '[desk, home] for Alger');
    assert.deepEqual(fees.data[49], [null, null], 'a wilaya the tenant does not serve');
    assert.ok(ecotrack.calls.every((c) => !JSON.stringify([c.query.toString(), c.headers.authorization]).includes('sdk-token-ignored')));

    const order = await newOrder(s);
    assert.equal((await send(s, { orderId: order.id })).status, 201);
    const stats = await ff.get(`/stores/${storeId}/integrations/ecotrack/statistics`);
    assert.equal(stats.status, 200, stats.text);
    assert.deepEqual(stats.data.global, { enTraitement: 1, livred: 0, retours: 0, total: 1 });
    assert.deepEqual(stats.data.today_act, { expedie: 1, delivered: 0, returned: 0, suspended: 0 });
    assert.deepEqual(stats.data.top_wilaya, [{ wilaya_id: 16, total: 1, retours: 0, livred: 0, wilaya_name: 'Alger' }]);
    assertFeeefProblem(await ff.get(`/stores/${storeId}/integrations/ecotrack/finance`, { api_token: 'x' }), 501, 'NOT_IMPLEMENTED');
  });

  test('procolis(), noest() and zimou(): getDeliveryFees and send', async () => {
    const cases = [
      { provider: 'procolis', body: { provider: 'procolis', config: { fromWilaya: 16 }, secrets: { apiToken: procolis.token, apiKey: procolis.key } }, creds: { key: 'k', token: 't' }, alger: [300, 400], held: (id: string) => procolis.colis.has(id) },
      { provider: 'noest', body: { provider: 'noest', config: { userGuid: noest.guid, fromWilaya: 16 }, secrets: { apiToken: noest.token } }, creds: { guid: 'g', token: 't' }, alger: [350, 450], held: (id: string) => noest.ordersOf(id).length === 1 },
      { provider: 'zimou', body: { provider: 'zimou', config: { fromWilaya: 16 }, secrets: { apiToken: zimou.token } }, creds: { apiKey: 'k' }, alger: [350, 450], held: (id: string) => zimou.packagesOf(id).length === 1 },
    ];
    for (const c of cases) {
      const { ff, storeId, s } = await feeefCarrier(c.body);
      const fees = await ff.get(`/stores/${storeId}/integrations/${c.provider}/fees`, c.creds);
      assert.equal(fees.status, 200, `${c.provider}: ${fees.text}`);
      assert.deepEqual(fees.data[15], c.alger, c.provider);
      const order = await newOrder(s);
      const sent = await ff.post(`/stores/${storeId}/integrations/${c.provider}/send`, { ...c.creds, orderId: order.id });
      assert.equal(sent.status, 201, `${c.provider}: ${sent.text}`);
      assert.equal(sent.data.orderId, order.id);
      assert.ok(c.held(order.id), c.provider);
      const other = cases.find((o) => o.provider !== c.provider)!;
      const mismatch = await ff.get(`/stores/${storeId}/integrations/${other.provider}/fees`, other.creds);
      assertFeeefProblem(mismatch, 503, 'NOT_CONFIGURED');
      assert.match(mismatch.data.detail, new RegExp(`is ${c.provider}, not ${other.provider}`));
    }
  });
});
