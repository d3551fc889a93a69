import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, statementsOf, type Api, type TestService } from './helpers.js';
import { issueToken } from '../src/domains/auth/auth.service.js';
import { contractMismatch } from './contract.js';
import type { Ctx } from '../src/core/context.js';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const sql = <T = any>(text: string, params: unknown[] = []) => svc.service.deps.orm.em.getConnection().execute<T[]>(text, params);

async function product(s: Owner, name: string, price: number) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name, price, stock: 1000 } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function order(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }], ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function move(s: Owner, orderId: string, slug: string) {
  const res = await api('PATCH', `/v1/stores/${s.storeId}/orders/${orderId}`, { token: s.token, body: { status: slug } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Orders at given instants, written straight to the table (the API stamps createdAt itself). */
async function placeAt(s: Owner, rows: Array<{ at: string; status?: string; total?: number; confirmed?: boolean; items?: unknown[]; landingPageId?: string }>) {
  for (const r of rows) {
    await sql(
      `insert into orders (id, store_id, customer_name, items, total, status_id, status, metadata, created_at, updated_at, confirmed_at, landing_page_id)
       select ?, s.store_id, 'Ada', ?::jsonb, ?, s.id, s.slug, '{}', ?::timestamptz, now(), case when ? then ?::timestamptz end, ?
         from order_statuses s where s.store_id = ? and s.slug = ?`,
      [`ord_${randomBytes(12).toString('hex')}`, JSON.stringify(r.items ?? []), r.total ?? 100, r.at, r.confirmed ?? false, r.at, r.landingPageId ?? null, s.storeId, r.status ?? 'pending'],
    );
  }
}

const lorOf = async (s: Owner, query = '', path = `/v1/stores/${s.storeId}/analytics/lor`) => {
  const res = await api('GET', `${path}${query}`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.lor;
};

const hours = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 3_600_000;

/** The statements of one request, and those that read order data. */
async function statementsOfRequest(fn: () => Promise<unknown>): Promise<{ all: string[]; orders: string[] }> {
  const all = await statementsOf(svc, fn);
  return { all, orders: all.filter((q) => /\b"?(orders|order_products|order_statuses)"?\b/i.test(q)) };
}

describe('the store report', () => {
  test('defaults: the last 8 UTC days ending today, by status kind, in the shape clients read', async () => {
    const s = await ownerWithStore(api);
    const a = await order(s, { items: [{ name: 'Tea', quantity: 2, price: 10.5 }] });
    const b = await order(s);
    await order(s);
    await move(s, a.id, 'delivered');
    await move(s, b.id, 'cancelled');
    const lor = await lorOf(s);
    assert.deepEqual(Object.keys(lor).sort(), ['buckets', 'data', 'from', 'interval', 'lastItemDate', 'lastSync', 'rates', 'scope', 'to', 'totalOrders', 'totals', 'tz'].sort());
    assert.equal(lor.scope, 'store');
    assert.equal(lor.interval, 'day');
    assert.equal(lor.tz, 'UTC');
    assert.equal(lor.data.length, 8);
    assert.equal(lor.buckets.length, 8);
    assert.deepEqual(lor.data.slice(0, 7), Array(7).fill([0, 0, 0]));
    assert.deepEqual(lor.data[7], [1, 1, 1]);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(lor.buckets[7].start, `${today}T00:00:00+00:00`);
    const start = new Date(Date.parse(`${today}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    assert.equal(lor.from, `${start}T00:00:00+00:00`);
    assert.equal(lor.to, `${new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}T00:00:00+00:00`);
    assert.deepEqual(lor.buckets[7], { start: `${today}T00:00:00+00:00`, orders: 3, completed: 1, cancelled: 1, returned: 0, rest: 1, confirmed: 1, revenue: 21, units: null });
    assert.deepEqual(lor.totals, { orders: 3, completed: 1, cancelled: 1, returned: 0, rest: 1, confirmed: 1, revenue: 21, units: null });
    assert.equal(lor.totalOrders, 3);
    assert.ok(Date.now() - Date.parse(lor.lastSync) < 60_000);
    const newest = (await api('GET', `/v1/stores/${s.storeId}/orders?limit=1`, { token: s.token })).body.data[0];
    assert.equal(lor.lastItemDate, newest.createdAt);
    assert.deepEqual(lor.rates, { confirmation: 1 / 3, completion: 0.5, cancellation: 1 / 3, return: 0 });
  });

  test('an empty store: zero buckets, null rates and no last item', async () => {
    const s = await ownerWithStore(api);
    const lor = await lorOf(s);
    assert.deepEqual(lor.data, Array(8).fill([0, 0, 0]));
    assert.equal(lor.totalOrders, 0);
    assert.equal(lor.lastItemDate, null);
    assert.deepEqual(lor.rates, { confirmation: null, completion: null, cancellation: null, return: null });
    assert.equal(lor.totals.revenue, 0);
  });

  test('kinds: returned and rejected count as cancelled, returned also on its own; confirmed counts confirmedAt', async () => {
    const s = await ownerWithStore(api);
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await order(s, { items: [{ name: 'Tea', quantity: 1, price: 5 }] })).id);
    await move(s, ids[0], 'confirmed');
    await move(s, ids[1], 'delivered');
    await move(s, ids[2], 'confirmed');
    await move(s, ids[2], 'delivered');
    await move(s, ids[2], 'returned');
    const rejected = await api('POST', `/v1/stores/${s.storeId}/orders/${ids[3]}/reject`, { token: s.token, body: { reason: 'fake' } });
    assert.equal(rejected.status, 200, rejected.text);
    await move(s, ids[4], 'shipped');
    const lor = await lorOf(s);
    // ids: 0 confirmed (rest), 1 delivered, 2 returned, 3 rejected, 4 shipped (rest), 5 pending (rest)
    assert.deepEqual(lor.totals, { orders: 6, completed: 1, cancelled: 2, returned: 1, rest: 3, confirmed: 3, revenue: 5, units: null });
    assert.deepEqual(lor.data[7], [1, 2, 3]);
    assert.deepEqual(lor.rates, { confirmation: 0.5, completion: 1 / 3, cancellation: 1 / 3, return: 0.5 });
  });

  test('a status whose kind changes moves its orders to the new class', async () => {
    const s = await ownerWithStore(api);
    const o = await order(s);
    await move(s, o.id, 'shipped');
    assert.deepEqual((await lorOf(s)).data[7], [0, 0, 1]);
    const shipped = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data.find((x: any) => x.slug === 'shipped');
    const res = await api('PUT', `/v1/stores/${s.storeId}/statuses/${shipped.id}`, { token: s.token, body: { kind: 'fulfilled' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((await lorOf(s)).data[7], [1, 0, 0]);
  });

  test('totalOrders counts the window; lastItemDate is the newest order at any time', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [{ at: '2025-06-01T10:00:00Z' }, { at: '2025-06-02T10:00:00Z', status: 'delivered' }, { at: '2025-07-01T10:00:00Z' }]);
    const lor = await lorOf(s, '?from=2025-06-01&to=2025-06-03');
    assert.deepEqual(lor.data, [[0, 0, 1], [1, 0, 0]]);
    assert.equal(lor.totals.orders, 2);
    assert.equal(lor.totalOrders, 2);
    assert.equal(lor.lastItemDate, '2025-07-01T10:00:00.000Z');
    assert.equal(lor.totals.revenue, 1);
  });
});

describe('time zones and intervals', () => {
  test('Europe/Paris, last Sunday of March: the day bucket lasts 23 hours and orders fall by local day', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [
      { at: '2026-03-28T22:59:59Z' }, // 23:59:59 CET on the 28th
      { at: '2026-03-28T23:00:00Z' }, // 00:00 CET on the 29th
      { at: '2026-03-29T21:59:59Z' }, // 23:59:59 CEST on the 29th
      { at: '2026-03-29T22:00:00Z', status: 'delivered' }, // 00:00 CEST on the 30th
    ]);
    const lor = await lorOf(s, '?from=2026-03-28&to=2026-03-31&tz=Europe/Paris');
    assert.equal(lor.tz, 'Europe/Paris');
    assert.equal(lor.from, '2026-03-28T00:00:00+01:00');
    assert.equal(lor.to, '2026-03-31T00:00:00+02:00');
    assert.deepEqual(lor.buckets.map((b: any) => b.start), ['2026-03-28T00:00:00+01:00', '2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00']);
    assert.equal(hours(lor.buckets[0].start, lor.buckets[1].start), 24);
    assert.equal(hours(lor.buckets[1].start, lor.buckets[2].start), 23);
    assert.deepEqual(lor.data, [[0, 0, 1], [0, 0, 2], [1, 0, 0]]);
    // The same orders in UTC days fall differently: the zone is what places them.
    const utc = await lorOf(s, '?from=2026-03-28&to=2026-03-31');
    assert.deepEqual(utc.data, [[0, 0, 2], [1, 0, 1], [0, 0, 0]]);
  });

  test('Europe/Paris, last Sunday of October: the day bucket lasts 25 hours', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [
      { at: '2026-10-24T22:00:00Z' }, // 00:00 CEST on the 25th
      { at: '2026-10-25T00:30:00Z' }, // 02:30 CEST, before the clocks go back
      { at: '2026-10-25T01:30:00Z' }, // 02:30 CET, after
      { at: '2026-10-25T22:59:59Z' }, // 23:59:59 CET on the 25th
      { at: '2026-10-25T23:00:00Z' }, // 00:00 CET on the 26th
    ]);
    const lor = await lorOf(s, '?from=2026-10-24&to=2026-10-27&tz=Europe/Paris');
    assert.deepEqual(lor.buckets.map((b: any) => b.start), ['2026-10-24T00:00:00+02:00', '2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00']);
    assert.equal(hours(lor.buckets[1].start, lor.buckets[2].start), 25);
    assert.equal(lor.to, '2026-10-27T00:00:00+01:00');
    assert.deepEqual(lor.data.map((d: number[]) => d[2]), [0, 4, 1]);
  });

  test('Africa/Algiers: days start at 23:00 UTC all year', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [{ at: '2026-05-01T22:59:00Z' }, { at: '2026-05-01T23:00:00Z' }, { at: '2026-07-15T12:00:00Z' }]);
    const lor = await lorOf(s, '?from=2026-05-01&to=2026-05-03&tz=Africa/Algiers');
    assert.deepEqual(lor.buckets.map((b: any) => b.start), ['2026-05-01T00:00:00+01:00', '2026-05-02T00:00:00+01:00']);
    assert.deepEqual(lor.data, [[0, 0, 1], [0, 0, 1]]);
    const july = await lorOf(s, '?from=2026-07-15&to=2026-07-16&tz=Africa/Algiers');
    assert.equal(july.buckets[0].start, '2026-07-15T00:00:00+01:00');
    assert.deepEqual(july.data, [[0, 0, 1]]);
  });

  test('ISO weeks start on Monday; from and to still clip the first and last week', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [
      { at: '2026-03-03T12:00:00Z' }, // Tuesday, before from
      { at: '2026-03-05T12:00:00Z' }, // Thursday
      { at: '2026-03-09T00:00:00Z' }, // Monday of the second week
      { at: '2026-03-19T12:00:00Z' }, // after to
    ]);
    const lor = await lorOf(s, '?from=2026-03-04&to=2026-03-19&interval=week');
    assert.equal(lor.interval, 'week');
    assert.deepEqual(lor.buckets.map((b: any) => b.start), ['2026-03-02T00:00:00+00:00', '2026-03-09T00:00:00+00:00', '2026-03-16T00:00:00+00:00']);
    assert.deepEqual(lor.data.map((d: number[]) => d[2]), [1, 1, 0]);
    assert.equal(lor.totalOrders, 2);
  });

  test('months in a zone: the offset of each month start is its own', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [{ at: '2026-02-28T23:30:00Z' }, { at: '2026-04-30T21:30:00Z' }, { at: '2026-04-30T22:00:00Z' }]);
    const lor = await lorOf(s, '?from=2026-01-15&to=2026-05-01&interval=month&tz=Europe/Paris');
    assert.deepEqual(lor.buckets.map((b: any) => b.start), [
      '2026-01-01T00:00:00+01:00',
      '2026-02-01T00:00:00+01:00',
      '2026-03-01T00:00:00+01:00',
      '2026-04-01T00:00:00+02:00',
    ]);
    assert.deepEqual(lor.data.map((d: number[]) => d[2]), [0, 0, 1, 1]);
  });

  test('date-times with an offset are instants; without one, wall-clock times in tz', async () => {
    const s = await ownerWithStore(api);
    await placeAt(s, [{ at: '2026-06-10T08:00:00Z' }, { at: '2026-06-10T11:00:00Z' }]);
    const off = await lorOf(s, `?from=${encodeURIComponent('2026-06-10T10:00:00+02:00')}&to=2026-06-11T00:00:00Z&tz=Europe/Paris`);
    assert.equal(off.from, '2026-06-10T10:00:00+02:00');
    assert.equal(off.to, '2026-06-11T02:00:00+02:00');
    assert.deepEqual(off.buckets.map((b: any) => b.start), ['2026-06-10T00:00:00+02:00', '2026-06-11T00:00:00+02:00']);
    assert.equal(off.totals.orders, 2);
    const wall = await lorOf(s, '?from=2026-06-10T11:00:00&to=2026-06-11&tz=Europe/Paris');
    assert.equal(wall.from, '2026-06-10T11:00:00+02:00');
    assert.equal(wall.totals.orders, 1);
    // An unencoded + arrives as a space; it still reads as the offset.
    const plus = await lorOf(s, '?from=2026-06-10T10:00:01+02:00&to=2026-06-11&tz=Europe/Paris');
    assert.equal(plus.from, '2026-06-10T10:00:01+02:00');
    assert.equal(plus.totals.orders, 1);
  });

  test('bad parameters are 400 at the parameter', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/analytics/lor`;
    const cases: Array<[string, string]> = [
      ['?from=2026-13-01', 'from'],
      ['?from=2026-02-30', 'from'],
      ['?from=yesterday', 'from'],
      ['?to=2026-01-01T25:00:00Z', 'to'],
      ['?from=2026-01-10&to=2026-01-10', 'to'],
      ['?from=2026-01-10&to=2026-01-01', 'to'],
      ['?from=2999-01-01', 'from'],
      ['?interval=year', 'interval'],
      ['?interval=DAY', 'interval'],
      ['?tz=Mars/Olympus_Mons', 'tz'],
      ['?tz=%2B01:00', 'tz'],
      ['?tz=', 'tz'],
      ['?from=2000-01-01&to=2026-01-01', 'from'],
      ['?from=2000-01-01&to=2040-01-01&interval=month', 'from'],
    ];
    for (const [query, path] of cases) {
      const res = await api('GET', base + query, { token: s.token });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors?.[0]?.path, path, `${query}: ${res.text}`);
    }
    // 400 buckets is the most; 401 is refused.
    const ok = await api('GET', `${base}?from=2025-01-01&to=2026-02-05`, { token: s.token });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.lor.buckets.length, 400);
    assertProblem(await api('GET', `${base}?from=2025-01-01&to=2026-02-06`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base}?range=week`, { token: s.token }), 400, 'BAD_REQUEST');
  });
});

describe('products and landing pages', () => {
  test("a product's report counts orders containing it; revenue and units come from its lines only", async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 10.25);
    const cup = await product(s, 'Cup', 3);
    const a = await order(s, { items: [{ productId: tea.id, quantity: 2 }, { productId: cup.id, quantity: 1 }, { productId: tea.id, quantity: 1, price: 9 }] });
    const b = await order(s, { items: [{ productId: tea.id, quantity: 5 }] });
    await order(s, { items: [{ productId: cup.id, quantity: 1 }] });
    await move(s, a.id, 'delivered');
    await move(s, b.id, 'cancelled');
    const lor = await lorOf(s, '', `/v1/stores/${s.storeId}/products/${tea.id}/analytics/lor`);
    assert.equal(lor.scope, 'product');
    assert.deepEqual(lor.totals, { orders: 2, completed: 1, cancelled: 1, returned: 0, rest: 0, confirmed: 1, revenue: 29.5, units: 3 });
    assert.equal(lor.buckets[0].units, 0);
    assert.equal(lor.totalOrders, 2);
    const cupLor = await lorOf(s, '', `/v1/stores/${s.storeId}/products/${cup.id}/analytics/lor`);
    assert.deepEqual(cupLor.totals, { orders: 2, completed: 1, cancelled: 0, returned: 0, rest: 1, confirmed: 1, revenue: 3, units: 1 });

    // Changing an order's items, or moving many orders at once, reaches the product report.
    const patched = await api('PATCH', `/v1/stores/${s.storeId}/orders/${a.id}`, { token: s.token, body: { items: [{ productId: cup.id, quantity: 4 }] } });
    assert.equal(patched.status, 200, patched.text);
    const delivered = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data.find((x: any) => x.slug === 'delivered');
    const many = await api('POST', `/v1/stores/${s.storeId}/orders/applyMany`, { token: s.token, body: { orderIds: [b.id], statusId: delivered.id } });
    assert.equal(many.status, 200, many.text);
    const after = await lorOf(s, '', `/v1/stores/${s.storeId}/products/${tea.id}/analytics/lor`);
    assert.deepEqual(after.totals, { orders: 1, completed: 1, cancelled: 0, returned: 0, rest: 0, confirmed: 1, revenue: 51.25, units: 5 });
    const cupAfter = await lorOf(s, '', `/v1/stores/${s.storeId}/products/${cup.id}/analytics/lor`);
    assert.equal(cupAfter.totals.units, 4);
    assert.equal(cupAfter.totals.revenue, 12);

    // Deleted orders leave the report.
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/orders/${b.id}`, { token: s.token })).status, 204);
    assert.equal((await lorOf(s, '', `/v1/stores/${s.storeId}/products/${tea.id}/analytics/lor`)).totalOrders, 0);
  });

  test('unknown products and products of another store are 404', async () => {
    const s = await ownerWithStore(api);
    const other = await ownerWithStore(api);
    const theirs = await product(other, 'Theirs', 1);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/products/prod_nope/analytics/lor`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/products/${theirs.id}/analytics/lor`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `/v1/stores/${other.storeId}/analytics/lor`, { token: s.token }), 404, 'NOT_FOUND');
  });

  test('landing pages: create, read, list, change, delete; plp_ ids; slugs unique per store', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 1);
    const base = `/v1/stores/${s.storeId}/product_landing_pages`;
    const created = await api('POST', base, { token: s.token, body: { name: 'Summer Tea', productId: tea.id, content: { blocks: [{ type: 'hero' }] } } });
    assert.equal(created.status, 201, created.text);
    const lp = created.body;
    assert.match(lp.id, /^plp_[0-9a-f]+$/);
    assert.equal(await contractMismatch(svc.url, 'POST', base, 201, created.headers.get('content-type') ?? '', lp), null);
    assert.deepEqual(
      { storeId: lp.storeId, productId: lp.productId, name: lp.name, slug: lp.slug, status: lp.status, content: lp.content },
      { storeId: s.storeId, productId: tea.id, name: 'Summer Tea', slug: 'summer-tea', status: 'draft', content: { blocks: [{ type: 'hero' }] } },
    );
    const second = await api('POST', base, { token: s.token, body: { name: 'Summer Tea' } });
    assert.equal(second.body.slug, 'summer-tea-2');
    assert.equal(second.body.productId, null);
    assertProblem(await api('POST', base, { token: s.token, body: { name: 'X', slug: 'summer-tea' } }), 409, 'CONFLICT');
    const badProduct = await api('POST', base, { token: s.token, body: { name: 'X', productId: 'prod_nope' } });
    assertProblem(badProduct, 400, 'VALIDATION_FAILED');
    assert.equal(badProduct.body.errors[0].path, 'productId');
    const badStatus = await api('POST', base, { token: s.token, body: { name: 'X', status: 'live' } });
    assertProblem(badStatus, 400, 'VALIDATION_FAILED');
    assert.equal(badStatus.body.errors[0].path, 'status');
    assertProblem(await api('POST', base, { token: s.token, body: { name: 'X', colour: 'red' } }), 400, 'VALIDATION_FAILED');

    assert.deepEqual((await api('GET', `${base}/${lp.id}`, { token: s.token })).body, lp);
    const list = await api('GET', `${base}?productId=${tea.id}`, { token: s.token });
    assert.equal(await contractMismatch(svc.url, 'GET', base, 200, list.headers.get('content-type') ?? '', list.body), null);
    assert.deepEqual(list.body.data.map((x: any) => x.id), [lp.id]);
    assert.equal(list.body.nextCursor, null);
    const paged = await api('GET', `${base}?limit=1`, { token: s.token });
    assert.deepEqual(paged.body.data.map((x: any) => x.id), [second.body.id]);
    assert.equal(paged.body.nextCursor, second.body.id);

    const patched = await api('PATCH', `${base}/${lp.id}`, { token: s.token, body: { status: 'published', slug: 'tea-now', productId: null } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.status, 'published');
    assert.equal(patched.body.slug, 'tea-now');
    assert.equal(patched.body.productId, null);
    assert.equal(patched.body.content.blocks.length, 1);

    const other = await ownerWithStore(api);
    assertProblem(await api('GET', `/v1/stores/${other.storeId}/product_landing_pages/${lp.id}`, { token: other.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base}/${lp.id}`, { token: other.token }), 404, 'NOT_FOUND');

    assert.equal((await api('DELETE', `${base}/${lp.id}`, { token: s.token })).status, 204);
    assertProblem(await api('GET', `${base}/${lp.id}`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `${base}/${lp.id}`, { token: s.token }), 404, 'NOT_FOUND');
  });

  test('landing page writes need editor+ with store.settings; viewers read', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/product_landing_pages`;
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assertProblem(await api('POST', base, { token: viewer.token, body: { name: 'V' } }), 403, 'FORBIDDEN');
    const made = await api('POST', base, { token: editor.token, body: { name: 'E' } });
    assert.equal(made.status, 201, made.text);
    assert.equal((await api('GET', `${base}/${made.body.id}`, { token: viewer.token })).status, 200);
    assert.equal((await api('GET', `${base}/${made.body.id}/analytics/lor`, { token: viewer.token })).status, 200);
  });

  test('twenty writers racing for one slug: one wins, the rest get 409', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/product_landing_pages`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => api('POST', base, { token: s.token, body: { name: `Race ${i}`, slug: 'race' } })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(19).fill(409)], results.map((r) => r.text).join('\n'));
    for (const r of results) if (r.status === 409) assertProblem(r, 409, 'CONFLICT');
  });

  test("orders carry a landing page of their store; the page's report counts only its orders", async () => {
    const s = await ownerWithStore(api);
    const other = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/product_landing_pages`;
    const lp = (await api('POST', base, { token: s.token, body: { name: 'Page' } })).body;
    const theirs = (await api('POST', `/v1/stores/${other.storeId}/product_landing_pages`, { token: other.token, body: { name: 'Theirs' } })).body;
    const a = await order(s, { landingPageId: lp.id, items: [{ name: 'Tea', quantity: 1, price: 7 }] });
    assert.equal(a.landingPageId, lp.id);
    await order(s);
    const wrong = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada', landingPageId: theirs.id } });
    assertProblem(wrong, 400, 'VALIDATION_FAILED');
    assert.equal(wrong.body.errors[0].path, 'landingPageId');
    const c = await order(s);
    const set = await api('PATCH', `/v1/stores/${s.storeId}/orders/${c.id}`, { token: s.token, body: { landingPageId: lp.id } });
    assert.equal(set.body.landingPageId, lp.id);
    const badSet = await api('PATCH', `/v1/stores/${s.storeId}/orders/${c.id}`, { token: s.token, body: { landingPageId: 'plp_nope' } });
    assertProblem(badSet, 400, 'VALIDATION_FAILED');
    assert.equal(badSet.body.errors[0].path, 'landingPageId');
    await move(s, a.id, 'delivered');
    const lor = await lorOf(s, '', `${base}/${lp.id}/analytics/lor`);
    assert.equal(lor.scope, 'landingPage');
    assert.deepEqual(lor.totals, { orders: 2, completed: 1, cancelled: 0, returned: 0, rest: 1, confirmed: 1, revenue: 7, units: null });
    const cleared = await api('PATCH', `/v1/stores/${s.storeId}/orders/${c.id}`, { token: s.token, body: { landingPageId: null } });
    assert.equal(cleared.body.landingPageId, null);
    assert.equal((await lorOf(s, '', `${base}/${lp.id}/analytics/lor`)).totals.orders, 1);
    assertProblem(await api('GET', `${base}/plp_nope/analytics/lor`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base}/${theirs.id}/analytics/lor`, { token: s.token }), 404, 'NOT_FOUND');
  });
});

describe('batches', () => {
  test('products: one report per product in the order asked; unknown ids fail as NOT_FOUND', async () => {
    const s = await ownerWithStore(api);
    const other = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 2);
    const cup = await product(s, 'Cup', 3);
    const theirs = await product(other, 'Theirs', 1);
    const o = await order(s, { items: [{ productId: tea.id, quantity: 2 }] });
    await move(s, o.id, 'delivered');
    const res = await api('POST', `/v1/stores/${s.storeId}/products/analytics/lor/batch`, {
      token: s.token,
      body: { productIds: [cup.id, 'prod_nope', tea.id, theirs.id, cup.id], interval: 'week', tz: 'Africa/Algiers' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((d: any) => d.productId), [cup.id, tea.id]);
    assert.deepEqual(res.body.failed, [
      { productId: 'prod_nope', code: 'NOT_FOUND' },
      { productId: theirs.id, code: 'NOT_FOUND' },
    ]);
    const teaLor = res.body.data[1].lor;
    assert.equal(teaLor.scope, 'product');
    assert.equal(teaLor.interval, 'week');
    assert.equal(teaLor.tz, 'Africa/Algiers');
    assert.deepEqual(teaLor.totals, { orders: 1, completed: 1, cancelled: 0, returned: 0, rest: 0, confirmed: 1, revenue: 4, units: 2 });
    const single = await lorOf(s, '?interval=week&tz=Africa/Algiers', `/v1/stores/${s.storeId}/products/${tea.id}/analytics/lor`);
    assert.deepEqual({ ...teaLor, lastSync: null }, { ...single, lastSync: null });
    assert.equal(res.body.data[0].lor.totals.orders, 0);
  });

  test('products: 1 to 100 ids, window errors at their body path', async () => {
    const s = await ownerWithStore(api);
    const url = `/v1/stores/${s.storeId}/products/analytics/lor/batch`;
    const empty = await api('POST', url, { token: s.token, body: { productIds: [] } });
    assertProblem(empty, 400, 'VALIDATION_FAILED');
    assert.equal(empty.body.errors[0].path, 'productIds');
    const many = await api('POST', url, { token: s.token, body: { productIds: Array.from({ length: 101 }, (_, i) => `prod_${i}`) } });
    assertProblem(many, 400, 'VALIDATION_FAILED');
    assert.equal(many.body.errors[0].path, 'productIds');
    const hundred = await api('POST', url, { token: s.token, body: { productIds: Array.from({ length: 100 }, (_, i) => `prod_${i}`) } });
    assert.equal(hundred.status, 200, hundred.text);
    assert.equal(hundred.body.failed.length, 100);
    for (const [field, value] of [['from', 'soon'], ['to', '2026-02-31'], ['interval', 'hour'], ['tz', 'Nowhere/Land']]) {
      const bad = await api('POST', url, { token: s.token, body: { productIds: ['prod_x'], [field]: value } });
      assertProblem(bad, 400, 'VALIDATION_FAILED');
      assert.equal(bad.body.errors[0].path, field, bad.text);
    }
    assertProblem(await api('POST', url, { token: s.token, body: {} }), 400, 'VALIDATION_FAILED');
  });

  test('stores: the caller’s stores answer, any other fails as NOT_FOUND', async () => {
    const s = await ownerWithStore(api);
    const second = await api('POST', '/v1/stores', { token: s.token, body: { name: 'Second' } });
    const stranger = await ownerWithStore(api);
    const viewed = await ownerWithStore(api);
    const viewer = await memberWithRole(api, viewed.token, viewed.storeId, 'editor');
    await order(s);
    await order(stranger);
    const res = await api('POST', '/v1/stores/analytics/lor/batch', {
      token: s.token,
      body: { storeIds: [second.body.id, stranger.storeId, s.storeId, 'st_nope'], from: '2020-01-01', to: '2040-01-01', interval: 'month' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((d: any) => d.storeId), [second.body.id, s.storeId]);
    assert.deepEqual(res.body.failed, [
      { storeId: stranger.storeId, code: 'NOT_FOUND' },
      { storeId: 'st_nope', code: 'NOT_FOUND' },
    ]);
    assert.equal(res.body.data[1].lor.scope, 'store');
    assert.equal(res.body.data[1].lor.totals.orders, 1);
    assert.equal(res.body.data[1].lor.buckets.length, 240);
    assert.equal(res.body.data[0].lor.totals.orders, 0);
    const asMember = await api('POST', '/v1/stores/analytics/lor/batch', { token: viewer.token, body: { storeIds: [viewed.storeId, s.storeId] } });
    assert.deepEqual(asMember.body.data.map((d: any) => d.storeId), [viewed.storeId]);
    const tooMany = await api('POST', '/v1/stores/analytics/lor/batch', { token: s.token, body: { storeIds: Array.from({ length: 51 }, (_, i) => `st_${i}`) } });
    assertProblem(tooMany, 400, 'VALIDATION_FAILED');
    assert.equal(tooMany.body.errors[0].path, 'storeIds');
    assertProblem(await api('POST', '/v1/stores/analytics/lor/batch', { body: { storeIds: [s.storeId] } }), 401, 'UNAUTHENTICATED');
  });
});

describe('access', () => {
  test('members of any role read; strangers get 404; a token needs store.read', async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const stranger = await ownerWithStore(api);
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/analytics/lor`, { token: viewer.token })).status, 200);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/analytics/lor`, { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/analytics/lor`), 401, 'UNAUTHENTICATED');
    const em = svc.service.deps.orm.em.fork();
    const orders = issueToken({ em } as unknown as Ctx, s.user.id, { kind: 'oauth', scopes: ['store.orders'] });
    const reader = issueToken({ em } as unknown as Ctx, s.user.id, { kind: 'oauth', scopes: ['store.read'] });
    await em.flush();
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/analytics/lor`, { token: orders.token }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', '/v1/stores/analytics/lor/batch', { token: orders.token, body: { storeIds: [s.storeId] } }), 403, 'FORBIDDEN');
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/analytics/lor`, { token: reader.token })).status, 200);
    const batch = await api('POST', '/v1/stores/analytics/lor/batch', { token: reader.token, body: { storeIds: [s.storeId] } });
    assert.equal(batch.body.data.length, 1, batch.text);
  });
});

describe('one SQL statement per answer', () => {
  test('each of the five routes reads order data with exactly one statement', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 2);
    const lp = (await api('POST', `/v1/stores/${s.storeId}/product_landing_pages`, { token: s.token, body: { name: 'Page' } })).body;
    const second = (await api('POST', '/v1/stores', { token: s.token, body: { name: 'Second' } })).body;
    for (let i = 0; i < 3; i++) await order(s, { landingPageId: lp.id, items: [{ productId: tea.id, quantity: 1 }] });
    const products = [tea.id, ...Array.from({ length: 99 }, (_, i) => `prod_${i}`)];
    const calls: Array<[string, string, string, unknown?]> = [
      ['store', 'GET', `/v1/stores/${s.storeId}/analytics/lor?interval=week&tz=Europe/Paris`],
      ['product', 'GET', `/v1/stores/${s.storeId}/products/${tea.id}/analytics/lor`],
      ['landing page', 'GET', `/v1/stores/${s.storeId}/product_landing_pages/${lp.id}/analytics/lor`],
      ['product batch', 'POST', `/v1/stores/${s.storeId}/products/analytics/lor/batch`, { productIds: products }],
      ['store batch', 'POST', '/v1/stores/analytics/lor/batch', { storeIds: [s.storeId, second.id] }],
    ];
    for (const [name, method, path, body] of calls) {
      let res: any;
      const seen = await statementsOfRequest(async () => {
        res = await api(method, path, { token: s.token, body });
      });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      const lor = res.body.lor ?? res.body.data[0].lor;
      assert.equal(lor.totals.orders, 3, name);
      assert.ok(seen.all.length > 0, `${name}: the spy sees the statements of the request`);
      assert.equal(seen.orders.length, 1, `${name}: statements on order data:\n${seen.orders.join('\n')}`);
      assert.match(seen.orders[0], /generate_series/);
      // The answer keeps the OpenAPI document's schema for the route.
      assert.equal(await contractMismatch(svc.url, method, path, res.status, res.headers.get('content-type') ?? '', res.body), null, name);
    }
  });
});

describe('order_products follows every write', () => {
  test('bulk status moves, item edits and store deletion keep it exact', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 2);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await order(s, { items: [{ productId: tea.id, quantity: i + 1 }] })).id);
    const statuses = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data;
    const confirmed = statuses.find((x: any) => x.slug === 'confirmed');
    // Deleting a status moves its orders with one UPDATE; the trigger sees every row.
    await api('POST', `/v1/stores/${s.storeId}/orders/applyMany`, { token: s.token, body: { orderIds: ids, statusId: confirmed.id } });
    const pending = statuses.find((x: any) => x.slug === 'pending');
    const del = await api('DELETE', `/v1/stores/${s.storeId}/statuses/${confirmed.id}?moveTo=${pending.id}`, { token: s.token });
    assert.equal(del.status, 204, del.text);
    const rows = await sql(`select op.status_id, o.status_id as order_status, op.quantity, op.confirmed_at is not null as conf from order_products op join orders o on o.id = op.order_id where o.store_id = ? order by op.quantity`, [s.storeId]);
    assert.equal(rows.length, 5);
    for (const r of rows) assert.equal(r.status_id, r.order_status);
    assert.ok(rows.every((r) => r.status_id === pending.id && r.conf));
    assert.deepEqual(rows.map((r) => Number(r.quantity)), [1, 2, 3, 4, 5]);
    const deleted = await api('DELETE', `/v1/stores/${s.storeId}`, { token: s.token });
    assert.equal(deleted.status, 204, deleted.text);
    assert.deepEqual(await sql('select * from order_products where order_id = any(?::text[])', [`{${ids.join(',')}}`]), []);
  });
});
