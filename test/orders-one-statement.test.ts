// The common order (own item names and prices, nothing else to look up) is written with its event
// and delivery jobs in one statement, on the store defaults its previous order read; these tests
// hold it to what the general path writes, and to falling back when a guess no longer holds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, ownerWithStore, startTestService, statementsOf, type Api, type TestService } from './helpers.js';
import { CREATE_FIELDS, ITEM_FIELDS, oneStatementEligible } from '../src/domains/orders/order.one-statement.js';
import { startReceiver, type Receiver } from './receiver.js';

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

const sql = (s: TestService, query: string, params: unknown[] = []) => s.service.deps.orm.em.fork().getConnection().execute(query, params);
const body = (name: string, extra: Record<string, unknown> = {}) => ({ customerName: name, customerPhone: '0550000000', items: [{ name: 'Tea', quantity: 2, price: 3.5 }], ...extra });

async function webhook(s: { token: string; storeId: string }, path: string) {
  const res = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path), events: ['orderCreated'] } });
  assert.equal(res.status, 201, res.text);
}

/** A row or payload without what differs between any two orders. */
function shape(o: Record<string, unknown>) {
  const { id, created_at, updated_at, createdAt, updatedAt, payment_token_hash, customer_name, customerName, ...rest } = o;
  return rest;
}

describe('one-statement order create', () => {
  test("after a store's first order, a common order is one statement that writes what the general path writes", async () => {
    const s = await ownerWithStore(api);
    const first = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('First', { shippingAddress: { wilayaCode: '16', address: 'Rue 1' } }) });
    assert.equal(first.status, 201, first.text);
    let second: any;
    const seen = await statementsOf(svc, async () => {
      second = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Second', { shippingAddress: { wilayaCode: '16', address: 'Rue 1' } }) });
    });
    assert.equal(second!.status, 201, second!.text);
    const touching = seen.filter((q) => /\borders\b/i.test(q));
    assert.equal(touching.length, 1, touching.join('\n---\n'));
    assert.match(touching[0], /insert into store_events/i);
    assert.ok(!seen.some((q) => /^\s*begin\b/i.test(q)), seen.join('\n---\n'));

    const { paymentToken: t1, ...a } = first.body;
    const { paymentToken: t2, ...b } = second!.body;
    assert.ok(t1 && t2 && t1 !== t2);
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
    assert.deepEqual(shape(b), shape(a));
    assert.equal(b.customerName, 'Second');

    const rows = await sql(svc, 'select * from orders where id in (?, ?) order by created_at', [a.id, b.id]);
    assert.equal(rows.length, 2);
    assert.deepEqual(shape(rows[1]), shape(rows[0]));
    assert.ok(rows[1].payment_token_hash && rows[1].payment_token_hash !== rows[0].payment_token_hash);

    const events = await sql(svc, "select seq, data from store_events where store_id = ? and event = 'orderCreated' order by seq", [s.storeId]);
    assert.deepEqual(events.map((e: any) => Number(e.seq)), [Number(events[0].seq), Number(events[0].seq) + 1]);
    assert.deepEqual(events[1].data.order, { ...b, metadata: b.metadata });
    assert.deepEqual(shape(events[1].data.order), shape(events[0].data.order));
  });

  test('a guess that no longer holds (the first status moved or renamed) writes nothing and the general path runs', async () => {
    const s = await ownerWithStore(api);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('A') })).status, 201);
    const created = await api('POST', `/v1/stores/${s.storeId}/statuses`, { token: s.token, body: { name: 'Inbox', kind: 'new' } });
    assert.equal(created.status, 201, created.text);
    const ids = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data.map((x: { id: string }) => x.id) as string[];
    const reordered = await api('PUT', `/v1/stores/${s.storeId}/statuses/reorder`, { token: s.token, body: { ids: [created.body.id, ...ids.filter((id) => id !== created.body.id)] } });
    assert.equal(reordered.status, 200, reordered.text);
    const moved = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('B') });
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.body.statusId, created.body.id);
    assert.equal(moved.body.status, created.body.slug);

    assert.equal((await api('PUT', `/v1/stores/${s.storeId}/statuses/${created.body.id}`, { token: s.token, body: { slug: 'fresh' } })).status, 200);
    const renamed = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('C') });
    assert.equal(renamed.status, 201, renamed.text);
    assert.equal(renamed.body.status, 'fresh');
    assert.equal(renamed.body.statusId, created.body.id);
    const again = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('D') });
    assert.equal(again.body.status, 'fresh');
    const [event] = await sql(svc, "select data from store_events where store_id = ? and data->'order'->>'id' = ?", [s.storeId, again.body.id]);
    assert.equal(event.data.order.status, 'fresh');
    const seqs = (await sql(svc, 'select seq from store_events where store_id = ? order by seq', [s.storeId])).map((e: any) => Number(e.seq));
    assert.deepEqual(seqs, seqs.map((_: number, i: number) => seqs[0] + i), 'no sequence number taken by a write that did not happen');
  });

  test('orders to a deleted store are 404 on either path', async () => {
    const s = await ownerWithStore(api);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('A') })).status, 201);
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}`, { token: s.token })).status, 204);
    const res = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('B') });
    assert.equal(res.status, 404, res.text);
  });

  test('120 parallel creates with a webhook, racing with a loop renaming the first status: gap-free sequence, every order on its status’s current slug, each delivered once with its own id', async () => {
    const s = await ownerWithStore(api);
    const path = `/hook/${s.storeId}`;
    await webhook(s, path);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Warm') })).status, 201);
    const list = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data as Array<{ id: string; kind: string }>;
    const first = list.find((x) => x.kind === 'new')!;
    let creating = true;
    let renames = 0;
    const renamer = (async () => {
      while (creating) {
        const r = await api('PUT', `/v1/stores/${s.storeId}/statuses/${first.id}`, { token: s.token, body: { slug: `lane-${++renames}` } });
        assert.equal(r.status, 200, r.text);
      }
    })();
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body(`P${i}`) })));
    creating = false;
    await renamer;
    for (const r of results) assert.equal(r.status, 201, r.text);
    assert.ok(renames >= 2, `renamed ${renames} times during the creates`);
    const current = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data.find((x: { id: string }) => x.id === first.id).slug;
    const stored = await sql(svc, 'select status, status_id from orders where store_id = ?', [s.storeId]);
    assert.equal(stored.length, 121);
    for (const o of stored) {
      assert.equal(o.status_id, first.id);
      assert.equal(o.status, current, 'a rename waits for the orders that read the old slug and moves them');
    }
    const created = await sql(svc, "select seq, data from store_events where store_id = ? and event = 'orderCreated' order by seq", [s.storeId]);
    assert.equal(created.length, 121);
    const all = (await sql(svc, 'select seq from store_events where store_id = ? order by seq', [s.storeId])).map((e: any) => Number(e.seq));
    assert.deepEqual(all, all.map((_: number, i: number) => all[0] + i));
    const got = await rx.waitFor(121, 30_000, (r) => r.path === path);
    await new Promise((r) => setTimeout(r, 300));
    const mine = rx.received.filter((r) => r.path === path);
    assert.equal(mine.length, 121, 'each order delivered once');
    const ids = new Set(mine.map((r) => r.headers['x-svc-delivery']));
    assert.equal(ids.size, 121, 'each delivery has its own id');
    assert.deepEqual(new Set(got.map((r) => r.json.data.order.id)), new Set(created.map((e: any) => e.data.order.id)));
  });

  test('a create waits for a writer holding the first status, then takes its new slug', { skip: !process.env.DATABASE_URL && 'needs PostgreSQL' }, async () => {
    const s = await ownerWithStore(api);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('A') })).status, 201);
    const list = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data as Array<{ id: string; kind: string }>;
    const first = list.find((x) => x.kind === 'new')!;
    const writer = new pg.Client({ connectionString: svc.databaseUrl! });
    await writer.connect();
    try {
      await writer.query('begin');
      await writer.query('select id from order_statuses where id = $1 for update', [first.id]);
      let done = false;
      const pending = api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('B') }).finally(() => (done = true));
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(done, false, 'the create did not wait for the status row');
      await writer.query('update order_statuses set slug = $1 where id = $2', ['held', first.id]);
      await writer.query('update orders set status = $1 where status_id = $2', ['held', first.id]);
      await writer.query('commit');
      const res = await pending;
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'held');
      const rows = await sql(svc, 'select status from orders where store_id = ?', [s.storeId]);
      assert.deepEqual(rows.map((r: any) => r.status), ['held', 'held']);
    } finally {
      await writer.end();
    }
  });

  test('an inbound order is recorded and published but not delivered', async () => {
    const s = await ownerWithStore(api);
    const path = `/hook/inbound-${s.storeId}`;
    await webhook(s, path);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Warm') })).status, 201);
    const inbound = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('In', { metadata: { connector: { integrationSource: 'inbound' } } }) });
    assert.equal(inbound.status, 201, inbound.text);
    const after = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Out') });
    await rx.waitFor(2, 10_000, (r) => r.path === path);
    await new Promise((r) => setTimeout(r, 300));
    const names = rx.received.filter((r) => r.path === path).map((r) => r.json.data.order.customerName);
    assert.deepEqual(names.sort(), ['Out', 'Warm']);
    assert.equal(after.status, 201);
    const [event] = await sql(svc, "select count(*)::int as n from store_events where store_id = ? and data->'order'->>'id' = ?", [s.storeId, inbound.body.id]);
    assert.equal(event.n, 1);
  });

  test('embedded: the same path on the single PGlite connection, 40 parallel creates', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'souk-one-'));
    const emb = await startTestService({}, { databaseUrl: null, dataDir });
    try {
      const eapi = client(emb.url);
      const s = await ownerWithStore(eapi);
      assert.equal((await eapi('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Warm') })).status, 201);
      let results: Array<Awaited<ReturnType<Api>>> = [];
      const seen = await statementsOf(emb, async () => {
        results = await Promise.all(Array.from({ length: 40 }, (_, i) => eapi('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body(`E${i}`) })));
      });
      for (const r of results) assert.equal(r.status, 201, r.text);
      assert.equal(seen.filter((q) => /insert into store_events/i.test(q)).length, 40);
      const seqs = (await sql(emb, 'select seq from store_events where store_id = ? order by seq', [s.storeId])).map((e: any) => Number(e.seq));
      assert.equal(seqs.length, 41);
      assert.deepEqual(seqs, seqs.map((_: number, i: number) => seqs[0] + i));

      // The PGlite session outlives a socket connection that ends; the next connection writes on.
      const knexClient = emb.service.deps.orm.em.getConnection().getKnex().client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
      const conn = await knexClient.acquireConnection();
      await conn.end();
      await knexClient.releaseConnection(conn);
      for (let i = 0; i < 3; i++) {
        const res = await eapi('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body(`After${i}`) });
        assert.equal(res.status, 201, res.text);
      }
    } finally {
      await emb.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the eligibility is exhaustive: every field of the create input (and of its items) is classified, and each "absent" field sends the order down the general path', async () => {
    const fieldsOf = async (name: string) => {
      const res = await api('POST', '/graphql', { body: { query: `{ __type(name: "${name}") { inputFields { name } } }` } });
      assert.equal(res.status, 200, res.text);
      return (res.body.data.__type.inputFields as Array<{ name: string }>).map((f) => f.name).sort();
    };
    // A field added to OrderCreateInput or OrderItemInput without a place in these lists fails here.
    assert.deepEqual(Object.keys(CREATE_FIELDS).sort(), await fieldsOf('OrderCreateInput'));
    assert.deepEqual(Object.keys(ITEM_FIELDS).sort(), await fieldsOf('OrderItemInput'));

    const common = body('Plain');
    assert.equal(oneStatementEligible(common), true);
    const samples: Record<string, unknown> = { shippingMethodId: 'shp_x', promoCode: 'SAVE10', landingPageId: 'lp_x' };
    for (const [field, rule] of Object.entries(CREATE_FIELDS)) {
      if (rule !== 'absent') continue;
      assert.ok(field in samples, `a sample value for ${field}`);
      assert.equal(oneStatementEligible({ ...common, [field]: samples[field] }), false, field);
    }
    // A named product is a guess the statement checks (the next test), not a reason to leave.
    assert.equal(oneStatementEligible({ ...common, items: [{ name: 'Tea', price: 1 }, { productId: 'prod_x' }] }), true);

    const s = await ownerWithStore(api);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('First') })).status, 201);
    const product = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Tea', price: 3.5 } });
    let named: any;
    const seen = await statementsOf(svc, async () => {
      named = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Named', { items: [{ productId: product.body.id, quantity: 1 }] }) });
    });
    assert.equal(named.status, 201, named.text);
    assert.ok(seen.some((q) => /^\s*begin\b/i.test(q)), 'the first order naming a product is written in a transaction (the general path)');
  });
});


describe('one-statement order create naming products', () => {
  const named = (name: string, productId: string, extra: Record<string, unknown> = {}) =>
    body(name, { items: [{ productId, quantity: 2 }, { productId, name: 'Custom', price: 1.25 }, { name: 'Cake', price: 2 }], ...extra });

  async function storeWithProduct() {
    const s = await ownerWithStore(api);
    const product = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Tea', price: 3.5, stock: 7 } });
    assert.equal(product.status, 201, product.text);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body('Plain') })).status, 201);
    return { ...s, productId: product.body.id as string };
  }

  test('once an order read the product, the next is one statement that writes what the general path writes (price, event, stock)', async () => {
    const s = await storeWithProduct();
    let first: any;
    const general = await statementsOf(svc, async () => {
      first = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: named('First', s.productId) });
    });
    assert.equal(first.status, 201, first.text);
    assert.ok(general.some((q) => /^\s*begin\b/i.test(q)), 'the first order naming the product reads it in a transaction');
    let second: any;
    const seen = await statementsOf(svc, async () => {
      second = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: named('Second', s.productId) });
    });
    assert.equal(second.status, 201, second.text);
    assert.ok(!seen.some((q) => /^\s*begin\b/i.test(q)), seen.join('\n---\n'));
    const touching = seen.filter((q) => /\b(orders|products)\b/i.test(q));
    assert.equal(touching.length, 1, touching.join('\n---\n'));
    assert.match(touching[0], /for share of pr/i);

    const { paymentToken: t1, ...a } = first.body;
    const { paymentToken: t2, ...b } = second.body;
    assert.ok(t1 && t2 && t1 !== t2);
    assert.deepEqual(shape(b), shape(a));
    assert.deepEqual(
      b.items.map((i: any) => [i.productId, i.name, i.quantity, i.price]),
      [
        [s.productId, 'Tea', 2, 3.5],
        [s.productId, 'Custom', 1, 1.25],
        [null, 'Cake', 1, 2],
      ],
    );
    assert.equal(b.total, 10.25);
    const rows = await sql(svc, 'select * from orders where id in (?, ?) order by created_at', [a.id, b.id]);
    assert.deepEqual(shape(rows[1]), shape(rows[0]));
    const events = await sql(svc, "select data from store_events where store_id = ? and event = 'orderCreated' and data->'order'->>'id' in (?, ?) order by seq", [s.storeId, a.id, b.id]);
    assert.deepEqual(events[1].data.order, b);
    assert.deepEqual(shape(events[1].data.order), shape(events[0].data.order));
    // A new order holds no stock (its status is of kind `new`) on either path.
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token })).body.stock, 7);
  });

  test('a product renamed, repriced, deleted or of another store: the statement writes nothing and the general path answers', async () => {
    const s = await storeWithProduct();
    const create = (name: string, productId = s.productId) => api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: named(name, productId) });
    assert.equal((await create('Read')).status, 201);
    assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { price: 5 } })).status, 200);
    const repriced = await create('Repriced');
    assert.equal(repriced.status, 201, repriced.text);
    assert.equal(repriced.body.items[0].price, 5);
    assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { name: 'Green tea' } })).status, 200);
    const renamed = await create('Renamed');
    assert.equal(renamed.body.items[0].name, 'Green tea');
    assert.equal((await create('Again')).body.items[0].name, 'Green tea');

    const other = await storeWithProduct();
    assert.equal((await api('POST', `/v1/stores/${other.storeId}/orders`, { token: other.token, body: named('Theirs', other.productId) })).status, 201);
    const foreign = await create('Foreign', other.productId);
    assert.equal(foreign.status, 400, foreign.text);
    assert.equal(foreign.body.errors?.[0]?.path, 'items.0.productId', foreign.text);

    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token })).status, 204);
    const gone = await create('Gone');
    assert.equal(gone.status, 400, gone.text);
    const names = (await sql(svc, 'select customer_name from orders where store_id = ? order by created_at', [s.storeId])).map((r: any) => r.customer_name);
    assert.deepEqual(names, ['Plain', 'Read', 'Repriced', 'Renamed', 'Again']);
    const seqs = (await sql(svc, 'select seq from store_events where store_id = ? order by seq', [s.storeId])).map((e: any) => Number(e.seq));
    assert.deepEqual(seqs, seqs.map((_: number, i: number) => seqs[0] + i), 'no sequence number taken by a write that did not happen');
  });

  test('waves of parallel creates naming a product, racing with price updates: every order has the price of the last update committed before it', async () => {
    const s = await storeWithProduct();
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: named('Read', s.productId) })).status, 201);
    let creating = true;
    let updates = 0;
    const pricer = (async () => {
      while (creating) {
        const r = await api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { price: 4 + (++updates % 50) / 10 } });
        assert.equal(r.status, 200, r.text);
      }
    })();
    // Waves of 25 parallel creates until at least 100 orders and 10 updates overlapped.
    const results: Array<Awaited<ReturnType<Api>>> = [];
    const seen = await statementsOf(svc, async () => {
      while ((results.length < 100 || updates < 10) && results.length < 1000) {
        const n = results.length;
        results.push(
          ...(await Promise.all(
            Array.from({ length: 25 }, (_, i) => api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: body(`P${n + i}`, { items: [{ productId: s.productId }] }) })),
          )),
        );
      }
    });
    creating = false;
    await pricer;
    for (const r of results) assert.equal(r.status, 201, r.text);
    assert.ok(updates >= 10, `repriced ${updates} times during the creates`);
    // Sequence order is commit order: walk the store's events and follow the price.
    const events = await sql(svc, "select event, data from store_events where store_id = ? and event in ('productCreated', 'productUpdated', 'orderCreated') order by seq", [s.storeId]);
    let price: number | undefined;
    let checked = 0;
    for (const e of events) {
      if (e.event !== 'orderCreated') price = e.data.product.price;
      else if (e.data.order.items[0]?.productId === s.productId && e.data.order.items.length === 1) {
        assert.equal(e.data.order.items[0].price, price, `${e.data.order.customerName} took a price no longer current when it committed`);
        checked++;
      }
    }
    assert.equal(checked, results.length);
    const oneStatement = seen.filter((q) => /jsonb_to_recordset/i.test(q)).length;
    assert.ok(oneStatement >= 10, `only ${oneStatement} creates took the one-statement path`);
  });
});
