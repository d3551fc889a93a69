import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import pg from 'pg';
import { createClient } from 'graphql-sse';
import { client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { sleep } from './receiver.js';
import { gqlSubscribe, openSse, STORE_EVENTS } from './sse-client.js';
import { createContext } from '../src/core/context.js';
import { transaction } from '../src/core/tx.js';
import { recordRealtimeEvent } from '../src/events/outbox.js';

let svc: TestService;
let api: Api;

before(async () => {
  // A heartbeat of ten minutes: anything this file sees happen sooner was not the timer's doing.
  svc = await startTestService({ SOUK_SSE_HEARTBEAT_MS: '600000' });
  api = client(svc.url);
});
after(() => svc.close());

const streams = () => svc.service.deps.realtime.streams;

async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function createOrder(storeId: string, token: string, name = 'Ada') {
  const res = await api('POST', `/v1/stores/${storeId}/orders`, { token, body: { customerName: name, items: [{ name: 'Tea', quantity: 1, price: 2 }] } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

describe('shared work', () => {
  test('subscribers of one document, variables and view share one group; another filter or store gets its own; all get the same events', async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const other = await ownerWithStore(api);
    const groups = streams().groupCount;
    const base = svc.service.deps.realtime.size;
    // Owner and viewer alike: the view of storeEvents is the store's, whoever reads it.
    const same = Array.from({ length: 12 }, (_, i) => gqlSubscribe(svc.url, i % 2 ? viewer.token : s.token, STORE_EVENTS, { storeId: s.storeId }));
    const filtered = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['orderUpdated'] });
    const elsewhere = gqlSubscribe(svc.url, other.token, STORE_EVENTS, { storeId: other.storeId });
    const rest = await Promise.all(Array.from({ length: 6 }, () => openSse(`${svc.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${viewer.token}` })));
    const all = [...same, filtered, elsewhere];
    try {
      await Promise.all(all.map((x) => x.connected));
      await until('every reader registered', () => svc.service.deps.realtime.size >= base + all.length + rest.length);
      assert.equal(streams().groupCount, groups + 4, 'one group per document, variables and view (3), one for the REST streams of the store');
      const order = await createOrder(s.storeId, s.token);
      assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/orders/${order.id}`, { token: s.token, body: { customerName: 'Grace' } })).status, 200);
      await createOrder(other.storeId, other.token);
      await Promise.all([...same.map((x) => x.waitFor(2)), filtered.waitFor(1), elsewhere.waitFor(1), ...rest.map((x) => x.waitFor(2))]);
      await sleep(200);
      const first = JSON.stringify(same[0].results);
      for (const x of same) assert.equal(JSON.stringify(x.results), first, 'the same frames');
      assert.deepEqual(same[0].events().map((e) => [e.id, e.event]), [['1', 'orderCreated'], ['2', 'orderUpdated']]);
      assert.deepEqual(filtered.events().map((e) => e.id), ['2']);
      assert.deepEqual(elsewhere.events().map((e) => e.id), ['1']);
      for (const r of rest) assert.deepEqual(r.messages.map((m) => m.id), ['1', '2']);
    } finally {
      all.forEach((x) => x.close());
      await Promise.all(rest.map((r) => r.close()));
    }
    await until('the groups released', () => streams().groupCount === groups);
  });
});

describe('access follows changes, not a timer', () => {
  test('a removed member and a revoked token are cut off at once on every surface, graphql-sse single-connection mode included', async () => {
    const s = await ownerWithStore(api);
    const removed = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const revoked = await memberWithRole(api, s.token, s.storeId, 'editor');
    const stays = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const url = `${svc.url}/v1/stores/${s.storeId}/events/stream`;
    const sse = await Promise.all([removed, revoked, stays].map((m) => openSse(url, { authorization: `Bearer ${m.token}` })));
    const subs = [removed, revoked, stays].map((m) => gqlSubscribe(svc.url, m.token, STORE_EVENTS, { storeId: s.storeId }));
    // graphql-sse serves this mode itself; its subscriptions are watched the same way.
    const single = createClient({ url: `${svc.url}/graphql/stream`, headers: { Authorization: `Bearer ${removed.token}` }, singleConnection: true, retryAttempts: 0 });
    const singleResults: unknown[] = [];
    let singleDone = false;
    let dispose = () => {};
    try {
      await Promise.all(subs.map((x) => x.connected));
      const base = svc.service.deps.realtime.size;
      dispose = single.subscribe(
        { query: STORE_EVENTS, variables: { storeId: s.storeId } },
        { next: (r) => void singleResults.push(r), error: () => (singleDone = true), complete: () => (singleDone = true) },
      );
      await until('the single-connection subscription registered', () => svc.service.deps.realtime.size > base);
      await createOrder(s.storeId, s.token);
      await Promise.all([...sse.map((x) => x.waitFor(1)), ...subs.map((x) => x.waitFor(1))]);
      await until('the single-connection subscription got the event', () => singleResults.length === 1);

      assert.equal((await api('DELETE', `/v1/stores/${s.storeId}/members/${removed.user.id}`, { token: s.token })).status, 204);
      assert.equal((await api('POST', '/v1/users/auth/signout', { token: revoked.token })).status, 204);
      await until('the removed and revoked readers ended', () => sse[0].ended && sse[1].ended && subs[0].completed && subs[1].completed && singleDone);
      await createOrder(s.storeId, s.token);
      await sse[2].waitFor(2);
      await subs[2].waitFor(2);
      await sleep(200);
      assert.equal(sse[2].ended, false);
      assert.equal(subs[2].completed, false);
      assert.deepEqual([sse[0].messages.length, sse[1].messages.length, subs[0].events().length, subs[1].events().length, singleResults.length], [1, 1, 1, 1, 1]);
    } finally {
      dispose();
      single.dispose();
      subs.forEach((x) => x.close());
      await Promise.all(sse.map((x) => x.close()));
    }
  });
});

/** A graphql-sse subscription whose client reads nothing until `drain()`: then the ids it got before the stream ended. */
function slowSubscription(token: string, variables: Record<string, unknown>): Promise<{ req: ClientRequest; drain(): Promise<number[]> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${svc.url}/graphql/stream`,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`answered ${res.statusCode}`));
        res.pause();
        resolve({
          req,
          drain: () =>
            new Promise((done) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (text += chunk));
              res.on('close', () =>
                done(
                  text
                    .split('\n\n')
                    .filter((block) => block.startsWith('event: next\ndata: ') && block.endsWith('}'))
                    .map((block) => Number(JSON.parse(block.slice('event: next\ndata: '.length)).data.storeEvents.id)),
                ),
              );
              res.resume();
            }),
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query: STORE_EVENTS, variables }));
  });
}

describe('slow readers', () => {
  test('readers that stop reading are cut off with their position while the others get every event; they resume without loss', async () => {
    const s = await ownerWithStore(api);
    const url = `${svc.url}/v1/stores/${s.storeId}/events/stream?events=purchaseOrderUpdated`;
    const auth = { authorization: `Bearer ${s.token}` };
    let startReading!: () => void;
    const later = new Promise<void>((r) => (startReading = r));
    const base = svc.service.deps.realtime.size;
    const slow = await openSse(url, auth, { startReading: later });
    const fast = await Promise.all([openSse(url, auth), openSse(url, auth)]);
    const gql = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['purchaseOrderUpdated'] });
    await gql.connected;
    const slowGql = await slowSubscription(s.token, { storeId: s.storeId, events: ['purchaseOrderUpdated'] });
    await until('every reader registered', () => svc.service.deps.realtime.size === base + 5);
    // 256 KiB each: far more than the socket buffers and the 1 MiB limit hold for the reader that waits.
    const filler = 'x'.repeat(256 * 1024);
    const ctx = await createContext(svc.service.deps, `Bearer ${s.token}`, '127.0.0.1');
    const n = 80;
    try {
      for (let i = 0; i < n; i++) {
        await transaction(ctx, (tx) => recordRealtimeEvent(tx, { storeId: s.storeId, event: 'purchaseOrderUpdated', data: { store_id: s.storeId, i, filler } }));
      }
      await until('the slow readers cut off', () => svc.service.deps.realtime.size === base + 3, 60_000);
      await Promise.all([...fast.map((x) => x.waitFor(n, 60_000)), gql.waitFor(n, 60_000)]);
      for (const x of fast) assert.deepEqual(x.messages.map((m) => Number(m.id)), Array.from({ length: n }, (_, i) => i + 1));
      assert.deepEqual(gql.events().map((e) => e.data.i), Array.from({ length: n }, (_, i) => i));
      startReading();
      await until('the slow reader saw its end', () => slow.ended, 30_000);
      const got = slow.messages.map((m) => Number(m.id));
      assert.ok(got.length < n, `the slow reader was cut before the end (${got.length})`);
      assert.deepEqual(got, Array.from({ length: got.length }, (_, i) => i + 1), 'what it got is a prefix, in order');
      const resumed = await openSse(url, { ...auth, 'last-event-id': String(got[got.length - 1] ?? 0) });
      await resumed.waitFor(n - got.length, 60_000);
      await resumed.close();
      assert.deepEqual([...got, ...resumed.messages.map((m) => Number(m.id))], Array.from({ length: n }, (_, i) => i + 1));
      // The subscription's position is the id of the last event it got: the feed has the rest.
      const ids = await slowGql.drain();
      assert.ok(ids.length < n, `the slow subscription was cut before the end (${ids.length})`);
      assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
      const feed = await api('GET', `/v1/stores/${s.storeId}/events?events=purchaseOrderUpdated&limit=200&after=${ids[ids.length - 1] ?? 0}`, { token: s.token });
      assert.deepEqual([...ids, ...feed.body.data.map((e: any) => Number(e.id))], Array.from({ length: n }, (_, i) => i + 1));
    } finally {
      slowGql.req.destroy();
      startReading();
      gql.close();
      await Promise.all([slow, ...fast].map((x) => x.close()));
    }
  });
});

describe('the event time', { skip: process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): a second session holds the lock' }, () => {
  test("an event's timestamp is taken once its store's sequence is locked, not before the write waited for it", async () => {
    const s = await ownerWithStore(api);
    await createOrder(s.storeId, s.token);
    const holder = new pg.Client({ connectionString: svc.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select seq from store_event_seqs where store_id = $1 for update', [s.storeId]);
      const write = createOrder(s.storeId, s.token, 'Waits');
      // The write is queued on the lock (an event, not a sleep: the server says so).
      for (let i = 0; ; i++) {
        const { rows } = await holder.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (rows[0].n > 0) break;
        if (i > 1_500) throw new Error('the write never waited on the lock');
        await sleep(20);
      }
      const { rows } = await holder.query(`select date_trunc('milliseconds', clock_timestamp()) as released`);
      await holder.query('commit');
      const order = await write;
      const feed = await api('GET', `/v1/stores/${s.storeId}/events?after=1`, { token: s.token });
      const event = feed.body.data.find((e: any) => e.data.order.id === order.id);
      assert.ok(Date.parse(event.timestamp) >= (rows[0].released as Date).getTime(), `${event.timestamp} is not before the lock was released (${(rows[0].released as Date).toISOString()})`);
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
  });
});
