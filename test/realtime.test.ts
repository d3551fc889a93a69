import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { gqlSubscribe, openSse, STORE_EVENTS } from './sse-client.js';
import { PRUNE_CRON, PRUNE_QUEUE } from '../src/events/retention.js';
import { recordEvent } from '../src/events/outbox.js';
import { transaction } from '../src/core/tx.js';
import { createContext } from '../src/core/context.js';

let svc: TestService;
let api: Api;
let rx: Receiver;

before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_SSE_HEARTBEAT_MS: '200' });
  api = client(svc.url);
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await svc.close();
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createOrder(storeId: string, token: string, extra: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${storeId}/orders`, {
    token,
    body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }], ...extra },
  });
  assert.equal(res.status, 201, res.text);
  // paymentToken is in the create response only, never in an event payload.
  const { paymentToken: _token, ...order } = res.body;
  return order;
}

/** Waits until this process's hub holds `n` more subscribers than `base`: a subscription is live. */
async function hubReaches(n: number) {
  const hub = svc.service.deps.realtime;
  for (let i = 0; i < 250 && hub.size < n; i++) await sleep(20);
  assert.ok(hub.size >= n, `hub has ${hub.size} subscribers, expected ${n}`);
}

describe('GraphQL subscription storeEvents over graphql-sse', () => {
  test('a member receives order events after commit, in order, with the webhook payload data', async () => {
    const s = await ownerWithStore(api);
    const path = `/hook/${s.storeId}`;
    const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
    assert.equal(hook.status, 201, hook.text);
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await sub.connected;
      const order = await createOrder(s.storeId, s.token);
      const patched = await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { customerName: 'Grace' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token })).status, 204);
      await sub.waitFor(3);
      const events = sub.events();
      assert.deepEqual(events.map((e) => e.event), ['orderCreated', 'orderUpdated', 'orderDeleted']);
      assert.deepEqual(events.map((e) => e.id), ['1', '2', '3']);
      for (const e of events) {
        assert.equal(e.storeId, s.storeId);
        assert.match(e.timestamp, ISO_MS);
      }
      assert.deepEqual(events[0].data.order, order);
      assert.equal(events[1].data.previous_data.customerName, 'Ada');
      const deliveries = await rx.waitFor(3, 10_000, (r) => r.path === path);
      for (const e of events) {
        const d = deliveries.find((r) => r.json.event === e.event)!;
        assert.deepEqual(e.data, d.json.data, `${e.event}: data equals the webhook payload's data`);
        assert.equal(e.timestamp, d.json.timestamp);
      }
      assert.equal(sub.results.every((r) => !r.errors), true);
    } finally {
      sub.close();
    }
  });

  test('the events filter takes legacy spellings; product events flow too', async () => {
    const s = await ownerWithStore(api);
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['PRODUCT_UPDATED', 'order.deleted'] });
    try {
      await sub.connected;
      const product = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Mint', price: 3, stock: 5 } });
      assert.equal(product.status, 201, product.text);
      assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/products/${product.body.id}`, { token: s.token, body: { stock: 4 } })).status, 200);
      const order = await createOrder(s.storeId, s.token);
      assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token })).status, 204);
      await sub.waitFor(2);
      await sleep(200);
      const events = sub.events();
      assert.deepEqual(events.map((e) => [e.event, e.id]), [['productUpdated', '2'], ['orderDeleted', '4']]);
      assert.equal(events[0].data.product.stock, 4);
      assert.equal(events[0].data.previous_data.stock, 5);
    } finally {
      sub.close();
    }
  });

  test('inbound-connector writes are published here though no webhook fires', async () => {
    const s = await ownerWithStore(api);
    const path = `/hook/${s.storeId}`;
    await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await sub.connected;
      await createOrder(s.storeId, s.token, { metadata: { connector: { integrationSource: 'inbound' } } });
      await createOrder(s.storeId, s.token);
      await sub.waitFor(2);
      assert.deepEqual(sub.events().map((e) => e.data.order.metadata), [{ connector: { integrationSource: 'inbound' } }, {}]);
      await rx.waitFor(1, 10_000, (r) => r.path === path);
      await sleep(300);
      assert.equal(rx.received.filter((r) => r.path === path).length, 1, 'only the second write fired a webhook');
    } finally {
      sub.close();
    }
  });

  test('a non-member, a caller without token and an unknown event name get an error and no events', async () => {
    const s = await ownerWithStore(api);
    const stranger = await signup(api, 'Stranger');
    const cases: Array<[string | null, Record<string, unknown>, string]> = [
      [stranger.token, { storeId: s.storeId }, 'NOT_FOUND'],
      [null, { storeId: s.storeId }, 'UNAUTHENTICATED'],
      [s.token, { storeId: s.storeId, events: ['orderShipped'] }, 'VALIDATION_FAILED'],
      [stranger.token, { storeId: 'st_nope' }, 'NOT_FOUND'],
    ];
    const subs = cases.map(([token, vars]) => gqlSubscribe(svc.url, token, STORE_EVENTS, vars));
    // A presented token that is not valid is refused with 401 before any operation starts.
    const badToken = gqlSubscribe(svc.url, 'not-a-token', STORE_EVENTS, { storeId: s.storeId });
    try {
      await Promise.all([...subs, badToken].map((sub) => sub.waitForEnd()));
      await createOrder(s.storeId, s.token);
      await sleep(200);
      assert.equal(badToken.results.length, 0);
      assert.equal((badToken.failure as { response?: { status: number } })?.response?.status, 401, String(badToken.failure));
      subs.forEach((sub, i) => {
        assert.equal(sub.results.length, 1, `case ${i}: one result`);
        assert.equal(sub.results[0].data ?? null, null, `case ${i}: no data`);
        assert.equal((sub.results[0].errors?.[0] as any)?.extensions?.code, cases[i][2], `case ${i}: ${JSON.stringify(sub.results[0])}`);
      });
    } finally {
      subs.forEach((sub) => sub.close());
      badToken.close();
    }
  });

  test('concurrent writes reach every subscriber once each, in sequence order', async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const subs = [gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId }), gqlSubscribe(svc.url, viewer.token, STORE_EVENTS, { storeId: s.storeId })];
    try {
      await Promise.all(subs.map((x) => x.connected));
      const n = 25;
      await Promise.all(Array.from({ length: n }, () => createOrder(s.storeId, s.token)));
      for (const sub of subs) {
        await sub.waitFor(n);
        await sleep(200);
        assert.deepEqual(sub.events().map((e) => Number(e.id)), Array.from({ length: n }, (_, i) => i + 1));
      }
    } finally {
      subs.forEach((x) => x.close());
    }
  });

  test('a rolled-back write publishes nothing and uses no sequence number', async () => {
    const s = await ownerWithStore(api);
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await sub.connected;
      const ctx = await createContext(svc.service.deps, `Bearer ${s.token}`, '127.0.0.1');
      await assert.rejects(
        transaction(ctx, async (tx) => {
          await recordEvent(tx, { storeId: s.storeId, event: 'orderCreated', record: { id: 'ord_rolled_back', metadata: {} } as object });
          throw new Error('the write fails after its event was recorded');
        }),
        /fails after/,
      );
      const order = await createOrder(s.storeId, s.token);
      await sub.waitFor(1);
      await sleep(300);
      assert.deepEqual(sub.events().map((e) => [e.id, e.data.order.id]), [['1', order.id]]);
      const feed = await api('GET', `/v1/stores/${s.storeId}/events`, { token: s.token });
      assert.deepEqual(feed.body.data.map((e: any) => e.id), ['1']);
    } finally {
      sub.close();
    }
  });

  test('a closed subscription leaves the hub', async () => {
    const s = await ownerWithStore(api);
    const hub = svc.service.deps.realtime;
    const before = hub.size;
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    await sub.connected;
    await hubReaches(before + 1);
    sub.close();
    for (let i = 0; i < 100 && hub.size > before; i++) await sleep(20);
    assert.equal(hub.size, before);
  });
});

describe('the resumable feed', () => {
  test('GraphQL storeEvents(storeId, after, limit) pages oldest first', async () => {
    const s = await ownerWithStore(api);
    for (let i = 0; i < 5; i++) await createOrder(s.storeId, s.token);
    const gql = (variables: Record<string, unknown>) =>
      api('POST', '/graphql', {
        token: s.token,
        body: { query: 'query($s: ID!, $a: String, $l: Int) { storeEvents(storeId: $s, after: $a, limit: $l) { data { id event timestamp storeId data } nextCursor } }', variables },
      });
    const first = await gql({ s: s.storeId, l: 2 });
    assert.deepEqual(first.body.data.storeEvents.data.map((e: any) => e.id), ['1', '2']);
    assert.equal(first.body.data.storeEvents.nextCursor, '2');
    const rest = await gql({ s: s.storeId, a: '2', l: 10 });
    assert.deepEqual(rest.body.data.storeEvents.data.map((e: any) => e.id), ['3', '4', '5']);
    assert.equal(rest.body.data.storeEvents.nextCursor, null);
    const e = rest.body.data.storeEvents.data[0];
    assert.equal(e.event, 'orderCreated');
    assert.equal(e.storeId, s.storeId);
    assert.match(e.timestamp, ISO_MS);
    assert.equal(e.data.store_id, s.storeId);
  });

  test('REST GET /v1/stores/{storeId}/events: after, cursor, limit, events, errors', async () => {
    const s = await ownerWithStore(api);
    const orders = [];
    for (let i = 0; i < 3; i++) orders.push(await createOrder(s.storeId, s.token));
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${orders[0].id}`, { token: s.token, body: { customerName: 'Bo' } });
    const all = await api('GET', `/v1/stores/${s.storeId}/events`, { token: s.token });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.data.map((e: any) => [e.id, e.event]), [['1', 'orderCreated'], ['2', 'orderCreated'], ['3', 'orderCreated'], ['4', 'orderUpdated']]);
    assert.deepEqual(all.body.data[0].data.order, orders[0]);
    assert.equal(all.body.nextCursor, null);
    const after = await api('GET', `/v1/stores/${s.storeId}/events?after=1&limit=2`, { token: s.token });
    assert.deepEqual(after.body.data.map((e: any) => e.id), ['2', '3']);
    assert.equal(after.body.nextCursor, '3');
    const byCursor = await api('GET', `/v1/stores/${s.storeId}/events?cursor=3`, { token: s.token });
    assert.deepEqual(byCursor.body.data.map((e: any) => e.id), ['4']);
    const filtered = await api('GET', `/v1/stores/${s.storeId}/events?events=order.updated`, { token: s.token });
    assert.deepEqual(filtered.body.data.map((e: any) => e.id), ['4']);
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/events?after=99`, { token: s.token })).body.data.length, 0);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events?limit=201`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events?limit=0`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events?after=abc`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events?events=orderShipped`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events?after=1&cursor=2`, { token: s.token }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events`), 401, 'UNAUTHENTICATED');
    const stranger = await signup(api);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/events`, { token: stranger.token }), 404, 'NOT_FOUND');
  });

  test('limit defaults to 50 and reaches 200', async () => {
    const s = await ownerWithStore(api);
    for (let i = 0; i < 201; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, 201 - i) }, () => createOrder(s.storeId, s.token)));
    }
    const def = await api('GET', `/v1/stores/${s.storeId}/events`, { token: s.token });
    assert.equal(def.body.data.length, 50);
    assert.equal(def.body.nextCursor, '50');
    const max = await api('GET', `/v1/stores/${s.storeId}/events?limit=200`, { token: s.token });
    assert.equal(max.body.data.length, 200);
    assert.deepEqual(max.body.data.map((e: any) => Number(e.id)), Array.from({ length: 200 }, (_, i) => i + 1));
    assert.equal(max.body.nextCursor, '200');
  });
});

describe('the SSE stream GET /v1/stores/{storeId}/events/stream', () => {
  const streamUrl = (storeId: string, qs = '') => `${svc.url}/v1/stores/${storeId}/events/stream${qs}`;

  test('refuses with problem+json before streaming: 401, 404, 400', async () => {
    const s = await ownerWithStore(api);
    const stranger = await signup(api);
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [{}, '', 401, 'UNAUTHENTICATED'],
      [{ authorization: 'Bearer nope' }, '', 401, 'UNAUTHENTICATED'],
      [{ authorization: `Bearer ${stranger.token}` }, '', 404, 'NOT_FOUND'],
      [{ authorization: `Bearer ${s.token}`, 'last-event-id': 'x1' }, '', 400, 'VALIDATION_FAILED'],
      [{ authorization: `Bearer ${s.token}` }, '?after=-1', 400, 'VALIDATION_FAILED'],
      [{ authorization: `Bearer ${s.token}` }, '?events=nope', 400, 'VALIDATION_FAILED'],
      [{ authorization: `Bearer ${s.token}` }, '?since=1', 400, 'BAD_REQUEST'],
    ];
    for (const [headers, qs, status, code] of cases) {
      const res = await fetch(streamUrl(s.storeId, qs), { headers });
      const body = (await res.json()) as any;
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(body.code, code);
      assert.equal(body.type, 'about:blank');
    }
  });

  test('streams id/event/data, heartbeats, and resumes with Last-Event-ID: missed events first, then live, no gap, no duplicate', async () => {
    const s = await ownerWithStore(api);
    const auth = { authorization: `Bearer ${s.token}` };
    await createOrder(s.storeId, s.token);
    const first = await openSse(streamUrl(s.storeId), auth);
    assert.equal(first.status, 200);
    assert.match(first.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(first.headers.get('cache-control'), 'no-cache, no-transform');
    const o2 = await createOrder(s.storeId, s.token);
    await createOrder(s.storeId, s.token);
    const got = await first.waitFor(2);
    // Without a cursor the stream starts at "now": event 1 predates it.
    assert.deepEqual(got.map((m) => [m.id, m.event]), [['2', 'orderCreated'], ['3', 'orderCreated']]);
    const payload = JSON.parse(got[0].data);
    assert.deepEqual(Object.keys(payload), ['id', 'event', 'timestamp', 'storeId', 'data']);
    assert.equal(payload.id, '2');
    assert.equal(payload.storeId, s.storeId);
    assert.match(payload.timestamp, ISO_MS);
    assert.deepEqual(payload.data.order, o2);
    assert.equal(first.retry, 2000);
    await first.waitForComment('ping', 2_000);
    await first.close();

    await createOrder(s.storeId, s.token);
    await createOrder(s.storeId, s.token);
    const resumed = await openSse(streamUrl(s.storeId, '?after=1'), { ...auth, 'last-event-id': '3' });
    await resumed.waitFor(2);
    await createOrder(s.storeId, s.token);
    await resumed.waitFor(3);
    await sleep(200);
    assert.deepEqual(resumed.messages.map((m) => m.id), ['4', '5', '6'], 'Last-Event-ID wins over ?after=');
    await resumed.close();

    const fromQuery = await openSse(streamUrl(s.storeId, '?after=4&events=ORDER_CREATED'), auth);
    await fromQuery.waitFor(2);
    await sleep(100);
    assert.deepEqual(fromQuery.messages.map((m) => m.id), ['5', '6']);
    await fromQuery.close();
  });

  test('reconnecting under a steady write load loses and repeats nothing', async () => {
    const s = await ownerWithStore(api);
    const auth = { authorization: `Bearer ${s.token}` };
    let writing = true;
    let written = 0;
    const writer = (async () => {
      for (let i = 0; i < 400 && writing; i++) {
        await Promise.all([createOrder(s.storeId, s.token), createOrder(s.storeId, s.token)]);
        written += 2;
      }
    })();
    const seen: number[] = [];
    let lastId: string | null = null;
    for (let round = 0; round < 4; round++) {
      const sse = await openSse(streamUrl(s.storeId, lastId ? '' : '?after=0'), lastId ? { ...auth, 'last-event-id': lastId } : auth);
      await sse.waitFor(5 + round * 3, 15_000);
      await sse.close();
      for (const m of sse.messages) seen.push(Number(m.id));
      lastId = sse.messages[sse.messages.length - 1].id!;
    }
    writing = false;
    await writer;
    const tail = await openSse(streamUrl(s.storeId), { ...auth, 'last-event-id': lastId! });
    await tail.waitFor(written - seen.length, 15_000);
    await tail.close();
    for (const m of tail.messages) seen.push(Number(m.id));
    assert.equal(seen.length, written);
    assert.deepEqual(seen, Array.from({ length: written }, (_, i) => i + 1));
  });

  test('a removed member or a revoked token is cut off within a heartbeat interval, and cannot reconnect', async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const other = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const removed = await openSse(streamUrl(s.storeId), { authorization: `Bearer ${viewer.token}` });
    const signedOut = await openSse(streamUrl(s.storeId), { authorization: `Bearer ${other.token}` });
    const sub = gqlSubscribe(svc.url, viewer.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await sub.connected;
      await createOrder(s.storeId, s.token);
      await removed.waitFor(1);
      await signedOut.waitFor(1);
      await sub.waitFor(1);
      assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/members/${viewer.user.id}`, { token: s.token })).status, 204);
      assert.equal((await api('POST', '/v1/users/auth/signout', { token: other.token })).status, 204);
      for (let i = 0; i < 100 && !(removed.ended && signedOut.ended && sub.completed); i++) await sleep(50);
      assert.ok(removed.ended, 'the removed member stream ended');
      assert.ok(signedOut.ended, 'the revoked token stream ended');
      assert.ok(sub.completed, 'the removed member subscription completed');
      await createOrder(s.storeId, s.token);
      await sleep(200);
      assert.equal(removed.messages.length, 1);
      assert.equal(signedOut.messages.length, 1);
      assert.equal(sub.events().length, 1);
      assert.equal((await fetch(streamUrl(s.storeId), { headers: { authorization: `Bearer ${viewer.token}` } })).status, 404);
      assert.equal((await fetch(streamUrl(s.storeId), { headers: { authorization: `Bearer ${other.token}` } })).status, 401);
    } finally {
      await removed.close();
      await signedOut.close();
      sub.close();
    }
  });

  test('GET /v1/openapi.json documents the feed and the stream', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    assert.ok(doc.paths['/v1/stores/{storeId}/events'].get);
    const op = doc.paths['/v1/stores/{storeId}/events/stream'].get;
    assert.ok(op.responses['200'].content['text/event-stream']);
    assert.deepEqual(op.parameters.map((p: any) => p.name), ['storeId', 'after', 'events', 'Last-Event-ID']);
  });

  test('a closed stream leaves the hub', async () => {
    const s = await ownerWithStore(api);
    const hub = svc.service.deps.realtime;
    const before = hub.size;
    const sse = await openSse(streamUrl(s.storeId), { authorization: `Bearer ${s.token}` });
    await hubReaches(before + 1);
    await sse.close();
    for (let i = 0; i < 100 && hub.size > before; i++) await sleep(20);
    assert.equal(hub.size, before);
  });
});

describe('retention', () => {
  test('the prune job is scheduled on the queue and removes only events older than 7 days', async () => {
    const { boss } = svc.service.deps.queue;
    const schedules = await boss.getSchedules(PRUNE_QUEUE);
    assert.equal(schedules.length, 1);
    assert.equal(schedules[0].cron, PRUNE_CRON);

    const s = await ownerWithStore(api);
    for (let i = 0; i < 3; i++) await createOrder(s.storeId, s.token);
    const em = svc.service.deps.orm.em.fork() as EntityManager;
    await em.execute(`update store_events set created_at = now() - interval '8 days' where store_id = ? and seq <= 2`, [s.storeId]);
    await em.execute(`update store_events set created_at = now() - interval '6 days 23 hours' where store_id = ? and seq = 3`, [s.storeId]);
    // What the schedule sends each hour, sent now.
    await boss.send(PRUNE_QUEUE, {});
    let ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      ids = (await api('GET', `/v1/stores/${s.storeId}/events`, { token: s.token })).body.data.map((e: any) => e.id);
      if (ids.length < 3) break;
      await sleep(100);
    }
    assert.deepEqual(ids, ['3']);
    // The sequence continues past pruned events: cursors stay valid.
    await createOrder(s.storeId, s.token);
    const next = await api('GET', `/v1/stores/${s.storeId}/events?after=3`, { token: s.token });
    assert.deepEqual(next.body.data.map((e: any) => e.id), ['4']);
  });
});

describe('PostgreSQL LISTEN/NOTIFY', { skip: process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): embedded mode fans out in-process' }, () => {
  test('events committed while the LISTEN connection was down reach subscribers after it reconnects', async () => {
    const s = await ownerWithStore(api);
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    let late: ReturnType<typeof gqlSubscribe> | undefined;
    const admin = new pg.Client({ connectionString: svc.databaseUrl! });
    await admin.connect();
    try {
      await sub.connected;
      await createOrder(s.storeId, s.token);
      await sub.waitFor(1);
      const s2 = await ownerWithStore(api);
      const killed = await admin.query(
        `select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = 'souk-realtime' and datname = current_database()`,
      );
      assert.equal(killed.rowCount, 1, 'one LISTEN connection per process');
      // Subscribing to another store while the connection is down: caught up too.
      late = gqlSubscribe(svc.url, s2.token, STORE_EVENTS, { storeId: s2.storeId });
      await late.connected;
      await createOrder(s2.storeId, s2.token);
      await createOrder(s.storeId, s.token);
      await createOrder(s.storeId, s.token);
      await sub.waitFor(3, 15_000);
      await createOrder(s.storeId, s.token);
      await sub.waitFor(4, 15_000);
      await late.waitFor(1, 15_000);
      await createOrder(s2.storeId, s2.token);
      await late.waitFor(2, 15_000);
      await sleep(200);
      assert.deepEqual(sub.events().map((e) => e.id), ['1', '2', '3', '4']);
      assert.deepEqual(late.events().map((e) => e.id), ['1', '2']);
    } finally {
      await admin.end();
      sub.close();
      late?.close();
    }
  });
});
