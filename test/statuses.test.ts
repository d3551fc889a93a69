import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, statementsOf, type Api, type TestService } from './helpers.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { issueToken } from '../src/domains/auth/auth.service.js';
import type { Ctx } from '../src/core/context.js';

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

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const DEFAULTS = [
  ['Pending', 'pending', 'new'],
  ['Confirmed', 'confirmed', 'confirmed'],
  ['Processing', 'processing', 'other'],
  ['Shipped', 'shipped', 'other'],
  ['Delivered', 'delivered', 'fulfilled'],
  ['Returned', 'returned', 'returned'],
  ['Cancelled', 'cancelled', 'cancelled'],
  ['Rejected', 'rejected', 'rejected'],
];

async function newOrder(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, {
    token: s.token,
    body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }], ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function statuses(s: Owner): Promise<any[]> {
  const res = await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function statusBySlug(s: Owner, slug: string) {
  const found = (await statuses(s)).find((x) => x.slug === slug);
  assert.ok(found, `no status ${slug}`);
  return found;
}

/** An OAuth token of the user with the scopes, issued in-process (no OAuth app routes yet). */
async function oauthToken(userId: string, scopes: string[]): Promise<string> {
  const em = svc.service.deps.orm.em.fork();
  const { token } = issueToken({ em } as unknown as Ctx, userId, { kind: 'oauth', scopes });
  await em.flush();
  return token;
}

const getOrder = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/orders/${id}`, { token: s.token })).body;

/** A store with a webhook pointing at its own path of the receiver. */
async function storeWithWebhook() {
  const owner = await ownerWithStore(api);
  const path = `/hook/${owner.storeId}`;
  const created = await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: rx.url.replace('/hook', path), events: ['orderUpdated'] },
  });
  assert.equal(created.status, 201, created.text);
  return { ...owner, updates: (r: { path: string; json: any }) => r.path === path && r.json?.event === 'orderUpdated' };
}

describe('the status list', () => {
  test('every store starts with the default list, by position', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    assert.deepEqual(list.map((x) => [x.name, x.slug, x.kind]), DEFAULTS);
    assert.deepEqual(list.map((x) => x.position), [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const x of list) {
      assert.deepEqual(Object.keys(x).sort(), ['color', 'id', 'kind', 'name', 'position', 'slug']);
      assert.match(x.id, /^sts_/);
      assert.match(x.color, /^#[0-9a-f]{6}$/);
    }
    assert.equal((await newOrder(s)).status, 'pending');
  });

  test('create appends, derives the slug, refuses a taken slug (409) and bad fields (400)', async () => {
    const s = await ownerWithStore(api);
    const created = await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'On Hold Ça va', color: '#123abc' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.slug, 'on-hold-ca-va');
    assert.equal(created.body.kind, 'other');
    assert.equal(created.body.position, 8);
    assert.equal(created.body.color, '#123abc');
    const explicit = await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Paid', slug: 'paid', kind: 'confirmed' } });
    assert.equal(explicit.status, 201, explicit.text);
    assert.equal(explicit.body.position, 9);
    assert.deepEqual((await statuses(s)).slice(-2).map((x) => x.slug), ['on-hold-ca-va', 'paid']);
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Shipped' } }), 409, 'CONFLICT');
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'X', slug: 'paid' } }), 409, 'CONFLICT');
    const badKind = await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'X', kind: 'lost' } });
    assertProblem(badKind, 400, 'VALIDATION_FAILED');
    assert.equal(badKind.body.errors[0].path, 'kind');
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'X', color: 'red' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'X', extra: 1 } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: {} }), 400, 'VALIDATION_FAILED');
    assert.equal((await statuses(s)).length, 10);
  });

  test('reads are for any member, writes for editors and up; strangers learn nothing', async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const stranger = await signup(api);
    const order = await newOrder(s);
    const pending = await statusBySlug(s, 'pending');
    const base = `/v1/stores/${s.storeId}`;
    assert.equal((await api('GET', `${base}/statuses`, { token: viewer.token })).status, 200);
    assert.equal((await api('GET', `${base}/orders/counts`, { token: viewer.token })).status, 200);
    const writes: Array<[string, string, unknown?]> = [
      ['POST', `${base}/statuses`, { name: 'Viewer made' }],
      ['PUT', `${base}/statuses/${pending.id}`, { name: 'Renamed' }],
      ['DELETE', `${base}/statuses/${pending.id}`],
      ['PUT', `${base}/statuses/reorder`, { ids: [pending.id] }],
      ['POST', `${base}/statuses/reset`],
      ['POST', `${base}/orders/${order.id}/apply`, { statusId: pending.id }],
      ['POST', `${base}/orders/${order.id}/confirm`],
      ['POST', `${base}/orders/${order.id}/reject`, {}],
      ['POST', `${base}/orders/applyMany`, { orderIds: [order.id], statusId: pending.id }],
    ];
    for (const [method, path, body] of writes) {
      assertProblem(await api(method, path, { token: viewer.token, body }), 403, 'FORBIDDEN');
      assertProblem(await api(method, path, { token: stranger.token, body }), 404, 'NOT_FOUND');
    }
    assertProblem(await api('GET', `${base}/statuses`, { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base}/orders/counts`, { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base}/statuses`), 401, 'UNAUTHENTICATED');
    const readOnly = await oauthToken(s.user.id, ['store.read']);
    assert.equal((await api('GET', `${base}/statuses`, { token: readOnly })).status, 200);
    for (const [method, path, body] of writes) assertProblem(await api(method, path, { token: readOnly, body }), 403, 'FORBIDDEN');
    const ordersOnly = await oauthToken(s.user.id, ['store.orders']);
    assertProblem(await api('GET', `${base}/orders/counts`, { token: ordersOnly }), 403, 'FORBIDDEN');
    const scoped = await api('POST', `${base}/orders/${order.id}/apply`, { token: ordersOnly, body: { statusId: pending.id } });
    assert.equal(scoped.status, 200, scoped.text);
    const created = await api('POST', `${base}/statuses`, { token: editor.token, body: { name: 'Editor made' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api('POST', `${base}/orders/${order.id}/confirm`, { token: editor.token })).body.status, 'confirmed');
  });

  test('PUT changes name, color and kind; a new slug renames the status of its orders; 409 and 404', async () => {
    const s = await ownerWithStore(api);
    const order = await newOrder(s);
    const other = await newOrder(s);
    const shipped = await statusBySlug(s, 'shipped');
    await api('POST', `/v1/stores/${s.storeId}/orders/${other.id}/apply`, { token: s.token, body: { statusId: shipped.id } });
    const pending = await statusBySlug(s, 'pending');
    const put = await api('PUT', `/v1/stores/${s.storeId}/statuses/${pending.id}`, { token: s.token, body: { name: 'Awaiting', slug: 'awaiting', color: '#000000' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, { ...pending, name: 'Awaiting', slug: 'awaiting', color: '#000000' });
    const renamed = await getOrder(s, order.id);
    assert.equal(renamed.status, 'awaiting');
    assert.equal(renamed.statusId, pending.id);
    assert.equal((await getOrder(s, other.id)).status, 'shipped', 'orders of other statuses keep theirs');
    const filtered = await api('GET', `/v1/stores/${s.storeId}/orders?status=awaiting`, { token: s.token });
    assert.deepEqual(filtered.body.data.map((o: any) => o.id), [order.id]);
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/orders?status=pending`, { token: s.token })).body.data.length, 0);
    assert.equal((await newOrder(s)).status, 'awaiting');

    const kind = await api('PUT', `/v1/stores/${s.storeId}/statuses/${shipped.id}`, { token: s.token, body: { kind: 'fulfilled' } });
    assert.equal(kind.body.kind, 'fulfilled');
    assert.equal(kind.body.slug, 'shipped');
    assertProblem(await api('PUT', `/v1/stores/${s.storeId}/statuses/${shipped.id}`, { token: s.token, body: { slug: 'delivered' } }), 409, 'CONFLICT');
    assert.equal((await getOrder(s, other.id)).status, 'shipped', 'a refused rename changes no order');
    assertProblem(await api('PUT', `/v1/stores/${s.storeId}/statuses/${pending.id}`, { token: s.token, body: { kind: 'other' } }), 409, 'CONFLICT');
    assertProblem(await api('PUT', `/v1/stores/${s.storeId}/statuses/sts_missing`, { token: s.token, body: { name: 'X' } }), 404, 'NOT_FOUND');
    assertProblem(await api('PUT', `/v1/stores/${s.storeId}/statuses/${shipped.id}`, { token: s.token, body: { slug: 'Not A Slug' } }), 400, 'VALIDATION_FAILED');
    // With a second status of kind new, the first may change kind.
    await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Inbox', kind: 'new' } });
    const changed = await api('PUT', `/v1/stores/${s.storeId}/statuses/${pending.id}`, { token: s.token, body: { kind: 'other' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await newOrder(s)).status, 'inbox');
  });

  test('DELETE: unused 204; in use 409 unless moveTo moves its orders first; the last new status stays', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/statuses`;
    const list = await statuses(s);
    const [pending, , processing, shipped] = list;
    const del = await api('DELETE', `${base}/${processing.id}`, { token: s.token });
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const after = await statuses(s);
    assert.equal(after.length, 7);
    assert.deepEqual(after.map((x) => x.position), [0, 1, 2, 3, 4, 5, 6], 'positions close up');
    assert.equal(after[2].slug, 'shipped');

    const o1 = await newOrder(s);
    const o2 = await newOrder(s);
    await api('POST', `/v1/stores/${s.storeId}/orders/applyMany`, { token: s.token, body: { orderIds: [o1.id, o2.id], statusId: shipped.id } });
    assertProblem(await api('DELETE', `${base}/${shipped.id}`, { token: s.token }), 409, 'CONFLICT');
    assertProblem(await api('DELETE', `${base}/${shipped.id}?moveTo=${shipped.id}`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('DELETE', `${base}/${shipped.id}?moveTo=sts_missing`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assert.equal((await statuses(s)).length, 7);
    const delivered = after.find((x) => x.slug === 'delivered');
    const moved = await api('DELETE', `${base}/${shipped.id}?moveTo=${delivered.id}`, { token: s.token });
    assert.equal(moved.status, 204, moved.text);
    for (const o of [o1, o2]) {
      const now = await getOrder(s, o.id);
      assert.equal(now.status, 'delivered');
      assert.equal(now.statusId, delivered.id);
    }
    assert.equal((await statuses(s)).some((x) => x.id === shipped.id), false);

    assertProblem(await api('DELETE', `${base}/${pending.id}?moveTo=${delivered.id}`, { token: s.token }), 409, 'CONFLICT');
    assertProblem(await api('DELETE', `${base}/sts_missing`, { token: s.token }), 404, 'NOT_FOUND');
    const cancelled = after.find((x) => x.slug === 'cancelled');
    const confirmed = after.find((x) => x.slug === 'confirmed');
    await api('POST', `/v1/stores/${s.storeId}/orders/${o1.id}/apply`, { token: s.token, body: { statusId: cancelled.id } });
    assertProblem(await api('DELETE', `${base}/${cancelled.id}?moveTo=${confirmed.id}`, { token: s.token }), 409, 'CONFLICT');
  });

  test('PUT /statuses/reorder takes a permutation of every id (else 400) and is not /statuses/{statusId}', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const ids = list.map((x) => x.id).reverse();
    const res = await api('PUT', `/v1/stores/${s.storeId}/statuses/reorder`, { token: s.token, body: { ids } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((x: any) => x.id), ids);
    assert.deepEqual(res.body.data.map((x: any) => x.position), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual((await statuses(s)).map((x) => x.id), ids);
    const other = await ownerWithStore(api);
    const foreign = (await statuses(other))[0].id;
    for (const bad of [ids.slice(1), [...ids, ids[0]], [...ids.slice(1), ids[1]], [...ids.slice(1), foreign], []]) {
      const r = await api('PUT', `/v1/stores/${s.storeId}/statuses/reorder`, { token: s.token, body: { ids: bad } });
      assertProblem(r, 400, 'VALIDATION_FAILED');
      assert.equal(r.body.errors[0].path, 'ids');
    }
    assert.deepEqual((await statuses(s)).map((x) => x.id), ids, 'a refused reorder changes nothing');
    // A new order takes the first `new` status by position, wherever it now is.
    assert.equal((await newOrder(s)).status, 'pending');
  });

  test('POST /statuses/reset restores the defaults; orders on removed statuses move to the default of their kind', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/statuses`;
    const before = await statuses(s);
    const [pending, confirmed] = before;
    const onPending = await newOrder(s);
    await api('PUT', `${base}/${pending.id}`, { token: s.token, body: { slug: 'awaiting', name: 'Awaiting' } });
    await api('PUT', `${base}/${confirmed.id}`, { token: s.token, body: { name: 'OK', color: '#000000' } });
    const hold = (await api('POST', `${base}`, { token: s.token, body: { name: 'On hold' } })).body;
    const refund = (await api('POST', `${base}`, { token: s.token, body: { name: 'Refunded', kind: 'cancelled' } })).body;
    const onHold = await newOrder(s);
    const onRefund = await newOrder(s);
    const onConfirmed = await newOrder(s);
    await api('POST', `/v1/stores/${s.storeId}/orders/${onHold.id}/apply`, { token: s.token, body: { statusId: hold.id } });
    await api('POST', `/v1/stores/${s.storeId}/orders/${onRefund.id}/apply`, { token: s.token, body: { statusId: refund.id } });
    await api('POST', `/v1/stores/${s.storeId}/orders/${onConfirmed.id}/confirm`, { token: s.token });
    await api('DELETE', `${base}/${before[3].id}`, { token: s.token });
    await api('PUT', `${base}/reorder`, { token: s.token, body: { ids: (await statuses(s)).map((x) => x.id).reverse() } });

    const res = await api('POST', `${base}/reset`, { token: s.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((x: any) => [x.name, x.slug, x.kind]), DEFAULTS);
    assert.deepEqual(res.body.data.map((x: any) => x.position), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(await statuses(s), res.body.data);
    const now = new Map(res.body.data.map((x: any) => [x.slug, x]));
    assert.equal((now.get('confirmed') as any).id, confirmed.id, 'a default status still there keeps its id');
    assert.equal((now.get('confirmed') as any).color, before[1].color);
    assert.notEqual((now.get('pending') as any).id, pending.id, 'a renamed default is a custom status now');
    const expectations: Array<[any, string]> = [
      [onPending, 'pending'],
      [onHold, 'processing'],
      [onRefund, 'cancelled'],
      [onConfirmed, 'confirmed'],
    ];
    for (const [order, slug] of expectations) {
      const o = await getOrder(s, order.id);
      assert.equal(o.status, slug);
      assert.equal(o.statusId, (now.get(slug) as any).id);
    }
  });
});

describe('status writes under concurrency', () => {
  test('concurrent creates get distinct positions; concurrent equal slugs: one wins, the rest 409', async () => {
    const s = await ownerWithStore(api);
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: `Lane ${i}` } })));
    assert.deepEqual(made.map((r) => r.status), [201, 201, 201, 201, 201, 201]);
    assert.deepEqual(made.map((r) => r.body.position).sort((a, b) => a - b), [8, 9, 10, 11, 12, 13]);
    const same = await Promise.all(Array.from({ length: 4 }, () => api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Twin' } })));
    assert.deepEqual(same.map((r) => r.status).sort(), [201, 409, 409, 409]);
  });

  test('a slug rename racing with applies leaves no order on a stale slug', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const [pending, , , shipped] = list;
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await newOrder(s)).id);
    for (let round = 0; round < 4; round++) {
      const target = round % 2 ? pending : shipped;
      const results = await Promise.all([
        ...ids.map((id) => api('POST', `/v1/stores/${s.storeId}/orders/${id}/apply`, { token: s.token, body: { statusId: target.id } })),
        api('PUT', `/v1/stores/${s.storeId}/statuses/${target.id}`, { token: s.token, body: { slug: `lane-${round}` } }),
      ]);
      for (const r of results) assert.equal(r.status, 200, r.text);
      const orders = (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data;
      for (const o of orders) assert.equal(o.status, `lane-${round}`, `order ${o.id} in round ${round}`);
    }
  });

  test('deleting a status racing with applies to it never strands an order', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await newOrder(s)).id);
    const doomed = list[2];
    const results = await Promise.all([
      ...ids.map((id) => api('POST', `/v1/stores/${s.storeId}/orders/${id}/apply`, { token: s.token, body: { statusId: doomed.id } })),
      api('DELETE', `/v1/stores/${s.storeId}/statuses/${doomed.id}?moveTo=${list[3].id}`, { token: s.token }),
    ]);
    for (const r of results) assert.ok([200, 204, 400].includes(r.status), r.text);
    const orders = (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data;
    for (const o of orders) assert.ok(['pending', 'shipped'].includes(o.status), `${o.id} is ${o.status}`);
  });
});

describe('order status actions', () => {
  test('apply, confirm and reject change the status; confirming a rejected or cancelled order is 409', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/orders`;
    const list = await statuses(s);
    const shipped = list.find((x) => x.slug === 'shipped');
    const order = await newOrder(s);
    const applied = await api('POST', `${base}/${order.id}/apply`, { token: s.token, body: { statusId: shipped.id } });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.status, 'shipped');
    assert.equal(applied.body.statusId, shipped.id);
    assert.equal((await getOrder(s, order.id)).status, 'shipped');
    assertProblem(await api('POST', `${base}/${order.id}/apply`, { token: s.token, body: { statusId: 'sts_missing' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${base}/${order.id}/apply`, { token: s.token, body: {} }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${base}/ord_missing/apply`, { token: s.token, body: { statusId: shipped.id } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `${base}/ord_missing/confirm`, { token: s.token }), 404, 'NOT_FOUND');

    const confirmed = await api('POST', `${base}/${order.id}/confirm`, { token: s.token });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.body.status, 'confirmed');

    const rejected = await api('POST', `${base}/${order.id}/reject`, { token: s.token, body: { reason: 'Out of stock' } });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, 'rejected');
    assert.equal(rejected.body.rejectReason, 'Out of stock');
    assert.equal((await getOrder(s, order.id)).rejectReason, 'Out of stock');
    assertProblem(await api('POST', `${base}/${order.id}/confirm`, { token: s.token }), 409, 'CONFLICT');
    const cancelled = list.find((x) => x.slug === 'cancelled');
    assertProblem(await api('POST', `${base}/${order.id}/apply`, { token: s.token, body: { statusId: list[1].id } }), 409, 'CONFLICT');
    assertProblem(await api('PATCH', `${base}/${order.id}`, { token: s.token, body: { status: 'confirmed' } }), 409, 'CONFLICT');
    assert.equal((await getOrder(s, order.id)).status, 'rejected');

    const reopened = await api('POST', `${base}/${order.id}/apply`, { token: s.token, body: { statusId: cancelled.id } });
    assert.equal(reopened.body.status, 'cancelled');
    assert.equal(reopened.body.rejectReason, null, 'leaving kind rejected drops the reason');
    assertProblem(await api('POST', `${base}/${order.id}/confirm`, { token: s.token }), 409, 'CONFLICT');

    const bare = await newOrder(s);
    const noReason = await api('POST', `${base}/${bare.id}/reject`, { token: s.token });
    assert.equal(noReason.status, 200, noReason.text);
    assert.equal(noReason.body.status, 'rejected');
    assert.equal(noReason.body.rejectReason, null);
    assertProblem(await api('POST', `${base}/${bare.id}/reject`, { token: s.token, body: { why: 'x' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${base}/${bare.id}/confirm`, { token: s.token, body: { x: 1 } }), 400, 'VALIDATION_FAILED');
  });

  test('confirm and reject need a status of that kind (409 when the store has none)', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const confirmed = list.find((x) => x.slug === 'confirmed');
    await api('PUT', `/v1/stores/${s.storeId}/statuses/${confirmed.id}`, { token: s.token, body: { kind: 'other' } });
    const order = await newOrder(s);
    assertProblem(await api('POST', `/v1/stores/${s.storeId}/orders/${order.id}/confirm`, { token: s.token }), 409, 'CONFLICT');
    const paid = await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Paid', kind: 'confirmed' } });
    const res = await api('POST', `/v1/stores/${s.storeId}/orders/${order.id}/confirm`, { token: s.token });
    assert.equal(res.body.statusId, paid.body.id);
  });

  test('applyMany: one transaction, data and failed (NOT_FOUND, CONFLICT), at most 500 ids', async () => {
    const s = await ownerWithStore(api);
    const other = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/orders`;
    const list = await statuses(s);
    const [pending, confirmed] = list;
    const rejected = list.find((x) => x.slug === 'rejected');
    const a = await newOrder(s);
    const b = await newOrder(s);
    const c = await newOrder(s);
    const foreign = await newOrder(other);
    await api('POST', `${base}/${c.id}/reject`, { token: s.token });
    const res = await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [a.id, 'ord_missing', b.id, c.id, foreign.id, a.id], statusId: confirmed.id } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      data: [
        { id: a.id, status: 'confirmed' },
        { id: b.id, status: 'confirmed' },
      ],
      failed: [
        { id: 'ord_missing', code: 'NOT_FOUND' },
        { id: c.id, code: 'CONFLICT' },
        { id: foreign.id, code: 'NOT_FOUND' },
      ],
    });
    assert.equal((await getOrder(s, a.id)).status, 'confirmed');
    assert.equal((await getOrder(s, c.id)).status, 'rejected');
    assert.equal((await getOrder(other, foreign.id)).status, 'pending');
    const back = await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [a.id, c.id], statusId: pending.id } });
    assert.deepEqual(back.body.data.map((x: any) => x.status), ['pending', 'pending']);
    assert.equal(back.body.failed.length, 0);
    assert.equal((await getOrder(s, c.id)).rejectReason, null);
    assertProblem(await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [a.id], statusId: (await statuses(other))[0].id } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [], statusId: rejected.id } }), 400, 'VALIDATION_FAILED');
    const tooMany = Array.from({ length: 501 }, (_, i) => `ord_${i}`);
    const r = await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: tooMany, statusId: rejected.id } });
    assertProblem(r, 400, 'VALIDATION_FAILED');
    assert.equal(r.body.errors[0].path, 'orderIds');
    const max = await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: tooMany.slice(1), statusId: rejected.id } });
    assert.equal(max.status, 200, max.text);
    assert.equal(max.body.failed.length, 500);
  });

  test('apply, confirm, reject and applyMany deliver orderUpdated with previous_data; unchanged orders none', async () => {
    const s = await storeWithWebhook();
    const base = `/v1/stores/${s.storeId}/orders`;
    const list = await statuses(s);
    const shipped = list.find((x) => x.slug === 'shipped');
    const delivered = list.find((x) => x.slug === 'delivered');
    const a = await newOrder(s);
    const b = await newOrder(s);

    const steps: Array<[() => Promise<unknown>, string, Array<[string, string, string]>]> = [
      [() => api('POST', `${base}/${a.id}/confirm`, { token: s.token }), 'confirm', [[a.id, 'pending', 'confirmed']]],
      [() => api('POST', `${base}/${a.id}/apply`, { token: s.token, body: { statusId: shipped.id } }), 'apply', [[a.id, 'confirmed', 'shipped']]],
      [() => api('POST', `${base}/${b.id}/reject`, { token: s.token, body: { reason: 'Fraud' } }), 'reject', [[b.id, 'pending', 'rejected']]],
      [
        () => api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [a.id, b.id], statusId: delivered.id } }),
        'applyMany',
        [
          [a.id, 'shipped', 'delivered'],
          [b.id, 'rejected', 'delivered'],
        ],
      ],
    ];
    let seen = 0;
    for (const [run, name, expected] of steps) {
      await run();
      seen += expected.length;
      const got = (await rx.waitFor(seen, 10_000, s.updates)).slice(seen - expected.length);
      const byOrder = new Map(got.map((d) => [d.json.data.order.id, d.json.data]));
      for (const [id, from, to] of expected) {
        const data = byOrder.get(id);
        assert.ok(data, `${name}: no orderUpdated for ${id}`);
        assert.equal(data.store_id, s.storeId);
        assert.equal(data.previous_data.status, from, name);
        assert.equal(data.order.status, to, name);
        assert.equal(data.previous_data.id, id);
      }
      if (name === 'reject') {
        assert.equal(byOrder.get(b.id).order.rejectReason, 'Fraud');
        assert.equal(byOrder.get(b.id).previous_data.rejectReason, null);
      }
    }
    // Already there: nothing changes, nothing is sent.
    const same = await api('POST', `${base}/applyMany`, { token: s.token, body: { orderIds: [a.id, b.id], statusId: delivered.id } });
    assert.equal(same.body.data.length, 2);
    await api('POST', `${base}/${a.id}/apply`, { token: s.token, body: { statusId: delivered.id } });
    await sleep(1500);
    assert.equal(rx.received.filter(s.updates).length, seen);
  });

  test('moving orders by renaming or deleting a status delivers orderUpdated with previous_data', async () => {
    const s = await storeWithWebhook();
    const list = await statuses(s);
    const [pending, confirmed] = list;
    const order = await newOrder(s);
    await api('PUT', `/v1/stores/${s.storeId}/statuses/${pending.id}`, { token: s.token, body: { slug: 'awaiting' } });
    const [renamed] = await rx.waitFor(1, 10_000, s.updates);
    assert.equal(renamed.json.data.order.status, 'awaiting');
    assert.equal(renamed.json.data.previous_data.status, 'pending');
    assert.equal(renamed.json.data.order.statusId, pending.id);
    await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Inbox', kind: 'new' } });
    const del = await api('DELETE', `/v1/stores/${s.storeId}/statuses/${pending.id}?moveTo=${confirmed.id}`, { token: s.token });
    assert.equal(del.status, 204, del.text);
    const moved = (await rx.waitFor(2, 10_000, s.updates))[1];
    assert.equal(moved.json.data.order.status, 'confirmed');
    assert.equal(moved.json.data.order.statusId, confirmed.id);
    assert.equal(moved.json.data.previous_data.status, 'awaiting');
    assert.equal(moved.json.data.previous_data.statusId, pending.id);
    assert.deepEqual(moved.json.data.order, await getOrder(s, order.id));
  });
});

describe('order counts', () => {
  test('GET /orders/counts: every status by position with its count, and the total', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const empty = await api('GET', `/v1/stores/${s.storeId}/orders/counts`, { token: s.token });
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, { data: list.map((x) => ({ statusId: x.id, slug: x.slug, name: x.name, count: 0 })), total: 0 });
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await newOrder(s));
    await api('POST', `/v1/stores/${s.storeId}/orders/${orders[0].id}/confirm`, { token: s.token });
    await api('POST', `/v1/stores/${s.storeId}/orders/${orders[1].id}/reject`, { token: s.token });
    await api('POST', `/v1/stores/${s.storeId}/orders/${orders[2].id}/reject`, { token: s.token });
    const other = await ownerWithStore(api);
    await newOrder(other);
    const res = await api('GET', `/v1/stores/${s.storeId}/orders/counts`, { token: s.token });
    const counts = Object.fromEntries(res.body.data.map((x: any) => [x.slug, x.count]));
    assert.deepEqual(counts, { pending: 1, confirmed: 1, processing: 0, shipped: 0, delivered: 0, returned: 0, cancelled: 0, rejected: 2 });
    assert.equal(res.body.total, 4);
  });

  test('the counts come from exactly one SQL statement', async () => {
    const s = await ownerWithStore(api);
    for (let i = 0; i < 3; i++) await newOrder(s);
    await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Extra' } });
    let res: any;
    const seen = await statementsOf(svc, async () => {
      res = await api('GET', `/v1/stores/${s.storeId}/orders/counts`, { token: s.token });
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, 3);
    assert.equal(res.body.data.length, 9);
    assert.ok(seen.length > 0, 'the spy sees the statements of the request');
    const touching = seen.filter((q) => /\b"?(orders|order_statuses)"?\b/i.test(q));
    assert.equal(touching.length, 1, `statements on orders or statuses:\n${touching.join('\n')}`);
    assert.match(touching[0], /count\(/i);
    assert.match(touching[0], /group by/i);
  });

  test('counts stay consistent while orders move concurrently', async () => {
    const s = await ownerWithStore(api);
    const list = await statuses(s);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await newOrder(s)).id);
    let moving = true;
    const mover = (async () => {
      for (let i = 0; i < 10; i++) {
        const target = list[(i % 5) + 1];
        await api('POST', `/v1/stores/${s.storeId}/orders/applyMany`, { token: s.token, body: { orderIds: ids, statusId: target.id } });
      }
      moving = false;
    })();
    let reads = 0;
    while (moving || reads < 5) {
      const res = await api('GET', `/v1/stores/${s.storeId}/orders/counts`, { token: s.token });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.total, 12);
      assert.equal(res.body.data.reduce((sum: number, x: any) => sum + x.count, 0), 12);
      assert.ok(res.body.data.some((x: any) => x.count === 12), `one applyMany is all or nothing: ${JSON.stringify(res.body.data)}`);
      reads++;
    }
    await mover;
  });
});

describe('order lists', () => {
  test('filters by status slug, customer name or phone, creation time; newest first with a cursor', async () => {
    const s = await ownerWithStore(api);
    const base = `/v1/stores/${s.storeId}/orders`;
    const a = await newOrder(s, { customerName: 'Amina Benali', customerPhone: '+213 555 0101' });
    await sleep(20);
    const b = await newOrder(s, { customerName: 'Bob 100%_Real', customerPhone: '+33 6 12' });
    await sleep(20);
    const c = await newOrder(s, { customerName: 'Chloé amin' });
    await api('POST', `${base}/${b.id}/confirm`, { token: s.token });
    const ids = async (query: string) => {
      const res = await api('GET', `${base}${query}`, { token: s.token });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((o: any) => o.id);
    };
    assert.deepEqual(await ids(''), [c.id, b.id, a.id]);
    assert.deepEqual(await ids('?status=pending'), [c.id, a.id]);
    assert.deepEqual(await ids('?status=confirmed'), [b.id]);
    assert.deepEqual(await ids('?status=shipped'), []);
    assert.deepEqual(await ids('?q=AMIN'), [c.id, a.id]);
    assert.deepEqual(await ids(`?q=${encodeURIComponent('555 01')}`), [a.id]);
    assert.deepEqual(await ids(`?q=${encodeURIComponent('100%_')}`), [b.id]);
    assert.deepEqual(await ids(`?q=${encodeURIComponent('%')}`), [b.id], 'wildcards are literal');
    assert.deepEqual(await ids('?q=amin&status=pending'), [c.id, a.id]);
    assert.deepEqual(await ids(`?createdAfter=${encodeURIComponent(b.createdAt)}`), [c.id, b.id]);
    assert.deepEqual(await ids(`?createdBefore=${encodeURIComponent(b.createdAt)}`), [a.id]);
    assert.deepEqual(await ids(`?createdAfter=${encodeURIComponent(b.createdAt)}&createdBefore=${encodeURIComponent(c.createdAt)}`), [b.id]);
    assertProblem(await api('GET', `${base}?createdAfter=yesterday`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${base}?limit=0`, { token: s.token }), 400, 'VALIDATION_FAILED');

    const first = await api('GET', `${base}?limit=2`, { token: s.token });
    assert.deepEqual(first.body.data.map((o: any) => o.id), [c.id, b.id]);
    assert.equal(first.body.nextCursor, b.id);
    const second = await api('GET', `${base}?limit=2&cursor=${first.body.nextCursor}`, { token: s.token });
    assert.deepEqual(second.body.data.map((o: any) => o.id), [a.id]);
    assert.equal(second.body.nextCursor, null);
    const filtered = await api('GET', `${base}?limit=1&status=pending`, { token: s.token });
    assert.deepEqual(filtered.body.data.map((o: any) => o.id), [c.id]);
    assert.deepEqual(await ids(`?limit=1&status=pending&cursor=${filtered.body.nextCursor}`), [a.id]);
  });
});

describe('GraphQL twins', () => {
  test('statuses, orderCounts and the order actions answer over /graphql with the same shapes', async () => {
    const s = await ownerWithStore(api);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await api('POST', '/graphql', { token: s.token, body: { query, variables } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const order = await newOrder(s);
    const list = await gql('query($s: ID!) { statuses(storeId: $s) { id slug kind position } }', { s: s.storeId });
    assert.deepEqual(list.data.statuses.map((x: any) => x.slug), DEFAULTS.map((d) => d[1]));
    const created = await gql('mutation($s: ID!) { createStatus(storeId: $s, input: { name: "Packed" }) { id slug kind position } }', { s: s.storeId });
    assert.deepEqual({ ...created.data.createStatus, id: null }, { id: null, slug: 'packed', kind: 'other', position: 8 });
    const applied = await gql('mutation($s: ID!, $o: ID!, $st: ID!) { applyOrderStatus(storeId: $s, id: $o, input: { statusId: $st }) { status } }', {
      s: s.storeId,
      o: order.id,
      st: created.data.createStatus.id,
    });
    assert.equal(applied.data.applyOrderStatus.status, 'packed');
    const rejected = await gql('mutation($s: ID!, $o: ID!) { rejectOrder(storeId: $s, id: $o, input: { reason: "No" }) { status rejectReason } }', { s: s.storeId, o: order.id });
    assert.deepEqual(rejected.data.rejectOrder, { status: 'rejected', rejectReason: 'No' });
    const refused = await gql('mutation($s: ID!, $o: ID!) { confirmOrder(storeId: $s, id: $o) { status } }', { s: s.storeId, o: order.id });
    assert.equal(refused.errors[0].extensions.code, 'CONFLICT');
    const counts = await gql('query($s: ID!) { orderCounts(storeId: $s) { data { slug count } total } }', { s: s.storeId });
    assert.equal(counts.data.orderCounts.total, 1);
    assert.equal(counts.data.orderCounts.data.find((x: any) => x.slug === 'rejected').count, 1);
    const many = await gql('mutation($s: ID!, $st: ID!, $ids: [ID!]!) { applyOrderStatusMany(storeId: $s, input: { orderIds: $ids, statusId: $st }) { data { id status } failed { id code } } }', {
      s: s.storeId,
      st: list.data.statuses[0].id,
      ids: [order.id],
    });
    assert.deepEqual(many.data.applyOrderStatusMany, { data: [{ id: order.id, status: 'pending' }], failed: [] });
    const reset = await gql('mutation($s: ID!) { resetStatuses(storeId: $s) { slug } }', { s: s.storeId });
    assert.equal(reset.data.resetStatuses.length, 8);
    const deleted = await gql('mutation($s: ID!, $id: ID!) { deleteStatus(storeId: $s, id: $id) }', { s: s.storeId, id: list.data.statuses[3].id });
    assert.equal(deleted.data.deleteStatus, true);
  });
});
