import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, signup, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';

/**
 * Races (issue 10): every race runs RUNS times, each run as parallel requests, and every run is
 * asserted against the outcomes the requests could have had one after the other.
 */
const RUNS = 20;

let svc: TestService;
let api: Api;
/** The first account of the database: the platform admin. */
let root: { token: string; user: any };
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  root = await signup(api, 'Root');
});
after(() => svc.close());

const runs = <T>(fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: RUNS }, (_, i) => fn(i)));

async function allEvents(storeId: string, token: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await api('GET', `/v1/stores/${storeId}/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { token });
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** The events of one record in sequence order. */
const eventsOf = (events: any[], kind: 'product' | 'order', id: string) => events.filter((e) => e.data[kind]?.id === id);

/** Each Updated event's previous_data is the record of the event before it; the last is the stored row. */
function assertChain(events: any[], kind: 'product' | 'order', stored: unknown, label: string) {
  for (let i = 1; i < events.length; i++) {
    assert.deepEqual(events[i].data.previous_data, events[i - 1].data[kind], `${label}: event ${i} (${events[i].event}) does not follow event ${i - 1}`);
  }
  assert.deepEqual(events[events.length - 1].data[kind], stored, `${label}: the last event disagrees with the stored row`);
}

const statuses = (rs: ApiResponse[]) => rs.map((r) => r.status);
const no5xx = (rs: ApiResponse[], label: string) => {
  for (const r of rs) assert.ok(r.status < 500, `${label}: ${r.status} ${r.text}`);
};

describe('lost updates: events of one record form a chain', () => {
  test('parallel PATCHes of one product (price and name)', async () => {
    const owner = await ownerWithStore(api);
    const products = await runs(async (i) => {
      const res = await api('POST', `/v1/stores/${owner.storeId}/products`, { token: owner.token, body: { name: `P${i}`, price: 1 } });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    });
    await runs(async (i) => {
      const id = products[i];
      const rs = await Promise.all(
        Array.from({ length: 6 }, (_, k) =>
          api('PATCH', `/v1/stores/${owner.storeId}/products/${id}`, { token: owner.token, body: k % 2 ? { price: 10 + k } : { name: `P${i}-${k}` } }),
        ),
      );
      assert.deepEqual(statuses(rs), [200, 200, 200, 200, 200, 200]);
    });
    const events = await allEvents(owner.storeId, owner.token);
    await runs(async (i) => {
      const id = products[i];
      const mine = eventsOf(events, 'product', id);
      assert.equal(mine[0].event, 'productCreated');
      assert.equal(mine.length, 7, `run ${i}: one event per PATCH`);
      const stored = (await api('GET', `/v1/stores/${owner.storeId}/products/${id}`, { token: owner.token })).body;
      assertChain(mine, 'product', stored, `run ${i}`);
    });
  });

  test('parallel PATCHes of one order (customer name and phone)', async () => {
    const owner = await ownerWithStore(api);
    const orders = await runs(async (i) => {
      const res = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: `C${i}`, items: [{ name: 'Tea', price: 2 }] } });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    });
    await runs(async (i) => {
      const rs = await Promise.all(
        Array.from({ length: 6 }, (_, k) =>
          api('PATCH', `/v1/stores/${owner.storeId}/orders/${orders[i]}`, { token: owner.token, body: k % 2 ? { customerPhone: `+2135550${k}` } : { customerName: `C${i}-${k}` } }),
        ),
      );
      assert.deepEqual(statuses(rs), [200, 200, 200, 200, 200, 200]);
    });
    const events = await allEvents(owner.storeId, owner.token);
    await runs(async (i) => {
      const mine = eventsOf(events, 'order', orders[i]);
      assert.equal(mine.length, 7, `run ${i}: one event per PATCH`);
      const stored = (await api('GET', `/v1/stores/${owner.storeId}/orders/${orders[i]}`, { token: owner.token })).body;
      assertChain(mine, 'order', stored, `run ${i}`);
    });
  });
});

test('reject racing a PATCH to confirmed ends as one of the serial orders', async () => {
  const owner = await ownerWithStore(api);
  const orders = await runs(async (i) => (await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: `R${i}` } })).body.id as string);
  const outcomes = await runs(async (i) => {
    const [reject, patch] = await Promise.all([
      api('POST', `/v1/stores/${owner.storeId}/orders/${orders[i]}/reject`, { token: owner.token, body: { reason: 'fraud' } }),
      api('PATCH', `/v1/stores/${owner.storeId}/orders/${orders[i]}`, { token: owner.token, body: { status: 'confirmed' } }),
    ]);
    return { reject, patch };
  });
  const events = await allEvents(owner.storeId, owner.token);
  await runs(async (i) => {
    const { reject, patch } = outcomes[i];
    // Either order of the two ends rejected: a confirmed order may be rejected, a rejected one not confirmed.
    assert.equal(reject.status, 200, `run ${i}: ${reject.text}`);
    assert.equal(reject.body.status, 'rejected');
    if (patch.status === 409) assertProblem(patch, 409, 'CONFLICT');
    else assert.equal(patch.status, 200, `run ${i}: ${patch.text}`);
    const stored = (await api('GET', `/v1/stores/${owner.storeId}/orders/${orders[i]}`, { token: owner.token })).body;
    assert.equal(stored.status, 'rejected', `run ${i}`);
    assert.equal(stored.rejectReason, 'fraud');
    const mine = eventsOf(events, 'order', orders[i]);
    assert.deepEqual(
      mine.map((e) => e.data.order.status),
      patch.status === 200 ? ['pending', 'confirmed', 'rejected'] : ['pending', 'rejected'],
      `run ${i}`,
    );
    assertChain(mine, 'order', stored, `run ${i}`);
  });
});

describe('double delete: one 204, nothing emitted after it', () => {
  test('products', async () => {
    const owner = await ownerWithStore(api);
    const ids = await runs(async (i) => (await api('POST', `/v1/stores/${owner.storeId}/products`, { token: owner.token, body: { name: `D${i}`, price: 1 } })).body.id as string);
    const outcomes = await runs((i) =>
      Promise.all([
        api('DELETE', `/v1/stores/${owner.storeId}/products/${ids[i]}`, { token: owner.token }),
        api('PATCH', `/v1/stores/${owner.storeId}/products/${ids[i]}`, { token: owner.token, body: { price: 5 } }),
        api('DELETE', `/v1/stores/${owner.storeId}/products/${ids[i]}`, { token: owner.token }),
      ]),
    );
    const events = await allEvents(owner.storeId, owner.token);
    outcomes.forEach(([d1, patch, d2], i) => {
      assert.deepEqual([d1.status, d2.status].sort(), [204, 404], `run ${i}`);
      assert.ok([200, 404].includes(patch.status), `run ${i}: ${patch.text}`);
      const mine = eventsOf(events, 'product', ids[i]);
      assert.deepEqual(
        mine.map((e) => e.event),
        patch.status === 200 ? ['productCreated', 'productUpdated', 'productDeleted'] : ['productCreated', 'productDeleted'],
        `run ${i}`,
      );
      assertChain(mine.slice(0, -1), 'product', mine[mine.length - 1].data.product, `run ${i}`);
    });
  });

  test('orders', async () => {
    const owner = await ownerWithStore(api);
    const ids = await runs(async (i) => (await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: `D${i}` } })).body.id as string);
    const outcomes = await runs((i) =>
      Promise.all([
        api('DELETE', `/v1/stores/${owner.storeId}/orders/${ids[i]}`, { token: owner.token }),
        api('PATCH', `/v1/stores/${owner.storeId}/orders/${ids[i]}`, { token: owner.token, body: { customerName: 'Late' } }),
        api('DELETE', `/v1/stores/${owner.storeId}/orders/${ids[i]}`, { token: owner.token }),
      ]),
    );
    const events = await allEvents(owner.storeId, owner.token);
    outcomes.forEach(([d1, patch, d2], i) => {
      assert.deepEqual([d1.status, d2.status].sort(), [204, 404], `run ${i}`);
      assert.ok([200, 404].includes(patch.status), `run ${i}: ${patch.text}`);
      const mine = eventsOf(events, 'order', ids[i]);
      assert.deepEqual(
        mine.map((e) => e.event),
        patch.status === 200 ? ['orderCreated', 'orderUpdated', 'orderDeleted'] : ['orderCreated', 'orderDeleted'],
        `run ${i}`,
      );
    });
  });

  test('webhooks', async () => {
    const owners = await runs(() => ownerWithStore(api));
    const outcomes = await runs(async (i) => {
      const { storeId, token } = owners[i];
      const base = `/v1/stores/${storeId}/integrations/webhooks`;
      const hook = await api('POST', base, { token, body: { name: 'H', url: 'https://example.com/h' } });
      assert.equal(hook.status, 201, hook.text);
      const rs = await Promise.all([
        api('DELETE', `${base}/${hook.body.id}`, { token }),
        api('PATCH', `${base}/${hook.body.id}`, { token, body: { name: 'Late' } }),
        api('DELETE', `${base}/${hook.body.id}`, { token }),
      ]);
      const list = await api('GET', base, { token });
      return { rs, list };
    });
    outcomes.forEach(({ rs: [d1, patch, d2], list }, i) => {
      assert.deepEqual([d1.status, d2.status].sort(), [204, 404], `run ${i}`);
      assert.ok([200, 404].includes(patch.status), `run ${i}: ${patch.text}`);
      assert.deepEqual(list.body.data, [], `run ${i}: a PATCH after the delete must not bring it back`);
    });
  });
});

/** The owners of a store, read through whichever of the tokens is still a member. */
async function ownersOf(storeId: string, tokens: string[]): Promise<string[]> {
  for (const token of tokens) {
    const res = await api('GET', `/v1/stores/${storeId}/members`, { token });
    if (res.status === 200) return res.body.data.filter((m: any) => m.role === 'owner').map((m: any) => m.userId);
  }
  return [];
}

describe('a store keeps an owner', () => {
  /** A store with two owners, A and B. */
  async function twoOwners() {
    const a = await ownerWithStore(api);
    const b = await signup(api, 'B');
    const added = await api('POST', `/v1/stores/${a.storeId}/members`, { token: a.token, body: { email: b.email, role: 'owner' } });
    assert.equal(added.status, 201, added.text);
    return { storeId: a.storeId, a, b };
  }

  const races: Record<string, (s: Awaited<ReturnType<typeof twoOwners>>) => Array<Promise<ApiResponse>>> = {
    'both leave': ({ storeId, a, b }) => [
      api('DELETE', `/v1/stores/${storeId}/members/${a.user.id}`, { token: a.token }),
      api('DELETE', `/v1/stores/${storeId}/members/${b.user.id}`, { token: b.token }),
    ],
    'each removes the other': ({ storeId, a, b }) => [
      api('DELETE', `/v1/stores/${storeId}/members/${b.user.id}`, { token: a.token }),
      api('DELETE', `/v1/stores/${storeId}/members/${a.user.id}`, { token: b.token }),
    ],
    'each demotes the other': ({ storeId, a, b }) => [
      api('PATCH', `/v1/stores/${storeId}/members/${b.user.id}`, { token: a.token, body: { role: 'admin' } }),
      api('PATCH', `/v1/stores/${storeId}/members/${a.user.id}`, { token: b.token, body: { role: 'admin' } }),
    ],
    'one leaves, the other deletes their account': ({ storeId, a, b }) => [
      api('DELETE', `/v1/stores/${storeId}/members/${a.user.id}`, { token: a.token }),
      api('DELETE', `/v1/users/${b.user.id}`, { token: b.token }),
    ],
  };

  for (const [name, race] of Object.entries(races)) {
    test(name, async () => {
      const stores = await runs(() => twoOwners());
      const outcomes = await runs((i) => Promise.all(race(stores[i])));
      await runs(async (i) => {
        const rs = outcomes[i];
        no5xx(rs, `run ${i}`);
        // Run one after the other, the second request finds a sole owner (409), or its caller no
        // longer a member (404) or no longer an owner (403).
        const ok = rs.filter((r) => r.status === 200 || r.status === 204);
        assert.equal(ok.length, 1, `run ${i}: ${rs.map((r) => r.text).join(' | ')}`);
        for (const r of rs) if (!ok.includes(r)) assert.ok([403, 404, 409].includes(r.status), `run ${i}: ${r.status} ${r.text}`);
        const owners = await ownersOf(stores[i].storeId, [stores[i].a.token, stores[i].b.token]);
        assert.equal(owners.length, 1, `run ${i}: the store has ${owners.length} owners`);
      });
    });
  }
});

test('the platform keeps an admin: two admins demoting or deleting each other', async () => {
  // Admins are platform-wide, so these runs go one after the other.
  const kinds = ['demote each other', 'demote themselves', 'delete themselves', 'delete each other'];
  let admin = root;
  assert.equal((await api('GET', '/v1/users/auth', { token: admin.token })).body.platformRole, 'admin');
  for (let i = 0; i < RUNS; i++) {
    const other = await signup(api, `Admin${i}`);
    const promoted = await api('PATCH', `/v1/users/${other.user.id}`, { token: admin.token, body: { platformRole: 'admin' } });
    assert.equal(promoted.status, 200, promoted.text);
    const kind = kinds[i % kinds.length];
    const [x, y] = [admin, other];
    const call = (actor: typeof x, target: typeof x) =>
      kind.startsWith('demote')
        ? api('PATCH', `/v1/users/${target.user.id}`, { token: actor.token, body: { platformRole: 'user' } })
        : api('DELETE', `/v1/users/${target.user.id}`, { token: actor.token });
    const rs = kind.endsWith('each other') ? await Promise.all([call(x, y), call(y, x)]) : await Promise.all([call(x, x), call(y, y)]);
    no5xx(rs, `run ${i} (${kind})`);
    const ok = rs.filter((r) => r.status === 200 || r.status === 204).length;
    assert.equal(ok, 1, `run ${i} (${kind}): ${rs.map((r) => `${r.status} ${r.text}`).join(' | ')}`);
    const left = [];
    for (const who of [x, y]) {
      const me = await api('GET', '/v1/users/auth', { token: who.token });
      if (me.status === 200 && me.body.platformRole === 'admin') left.push(who);
    }
    assert.equal(left.length, 1, `run ${i} (${kind}): ${left.length} admins left`);
    admin = left[0];
  }
});

test('deleting a store while its records are written: never a 500', async () => {
  const outcomes = await runs(async (i) => {
    const owner = await ownerWithStore(api);
    const base = `/v1/stores/${owner.storeId}`;
    const products = await Promise.all([0, 1, 2].map((k) => api('POST', `${base}/products`, { token: owner.token, body: { name: `S${i}-${k}`, price: 1 } })));
    const order = await api('POST', `${base}/orders`, { token: owner.token, body: { customerName: 'X' } });
    return Promise.all([
      ...products.map((p) => api('PATCH', `${base}/products/${p.body.id}`, { token: owner.token, body: { price: 2 } })),
      api('PATCH', `${base}/orders/${order.body.id}`, { token: owner.token, body: { status: 'confirmed' } }),
      api('POST', `${base}/products`, { token: owner.token, body: { name: 'New', price: 1 } }),
      api('DELETE', base, { token: owner.token }),
      ...products.map((p) => api('DELETE', `${base}/products/${p.body.id}`, { token: owner.token })),
    ]);
  });
  outcomes.forEach((rs, i) => {
    no5xx(rs, `run ${i}`);
    for (const r of rs) if (r.status >= 400) assert.ok([404, 409].includes(r.status), `run ${i}: ${r.status} ${r.text}`);
    assert.equal(rs[5].status, 204, `run ${i}: the store delete`);
  });
});

test('two first sign-ups at once: exactly one platform admin', async () => {
  const fresh = await startTestService();
  try {
    const freshApi = client(fresh.url);
    const em = fresh.service.deps.orm.em.fork();
    for (let i = 0; i < RUNS; i++) {
      await em.getConnection().execute('delete from users');
      const users = await Promise.all([0, 1, 2].map((k) => signup(freshApi, `First${i}-${k}`)));
      const admins = users.filter((u) => u.user.platformRole === 'admin');
      assert.equal(admins.length, 1, `run ${i}: ${admins.length} admins`);
    }
  } finally {
    await fresh.close();
  }
});

describe('deadlocks and serialization failures', () => {
  test('the transaction helper retries once, then answers 409 CONFLICT', async () => {
    const { transaction } = await import('../src/core/tx.js');
    const deps = svc.service.deps;
    const ctx = { em: deps.orm.em.fork() as any, deps, actor: null, authFailure: null, ip: '127.0.0.1', memberships: new Map() };
    for (const code of ['40P01', '40001']) {
      const failure = () => Object.assign(new Error('could not serialize'), { code });
      let calls = 0;
      const ok = await transaction(ctx, async () => {
        if (++calls === 1) throw failure();
        return 'ok';
      });
      assert.deepEqual([ok, calls], ['ok', 2]);
      calls = 0;
      await assert.rejects(
        transaction(ctx, async () => {
          calls++;
          throw failure();
        }),
        (err: any) => err.code === 'CONFLICT' && err.status === 409,
      );
      assert.equal(calls, 2);
    }
  });

  test('a real deadlock with another session: the PATCH is retried and answers 200', { skip: !process.env.DATABASE_URL && 'needs PostgreSQL' }, async () => {
    const pg = (await import('pg')).default;
    const owner = await ownerWithStore(api);
    // Batches stay under the ORM pool's ten connections, so every PATCH holds one while it waits.
    for (let batch = 0; batch < RUNS / 5; batch++) {
      await Promise.all(
        Array.from({ length: 5 }, async (_, k) => {
          const i = batch * 5 + k;
          const s = i === 0 ? owner : await ownerWithStore(api);
          const product = (await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `L${i}`, price: 1 } })).body;
          const other = new pg.Client({ connectionString: svc.databaseUrl! });
          await other.connect();
          try {
            await other.query('begin');
            await other.query('select 1 from products where id = $1 for update', [product.id]);
            // The PATCH locks the store row, then waits for the product row held here.
            const patch = api('PATCH', `/v1/stores/${s.storeId}/products/${product.id}`, { token: s.token, body: { price: 2 } });
            await new Promise((r) => setTimeout(r, 300));
            // Taking the store row now closes the cycle; PostgreSQL aborts one side.
            const mine = other.query('select 1 from stores where id = $1 for update', [s.storeId]).then(
              () => 'locked',
              (err) => err.code,
            );
            const first = await Promise.race([mine, patch.then(() => 'patch')]);
            if (first === 'locked') setTimeout(() => void other.query('commit').catch(() => {}), 200);
            else await other.query('rollback').catch(() => {});
            const res = await patch;
            assert.equal(res.status, 200, `run ${i}: ${res.text}`);
            assert.equal(res.body.price, 2);
          } finally {
            await new Promise((r) => setTimeout(r, 250));
            await other.end();
          }
        }),
      );
    }
  });
});
