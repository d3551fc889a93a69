import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { openSse, writeHistory } from './sse-client.js';

/**
 * Issue 28: a stream resumed with Last-Event-ID on one replica while the store is written through
 * another must send the backlog, then every live event, with no gap and no duplicate. Two services
 * in this process share one PostgreSQL, each with its own LISTEN connection, as two replicas do.
 */
const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): replicas share one database server';
const STORES = 16;
const HISTORY = 3;
const WINDOW = 5;

let A: TestService;
let B: TestService;
let apiA: Api;
const dataDir = mkdtempSync(join(tmpdir(), 'souk-resume-'));
before(async () => {
  if (skip) return;
  const env = { SOUK_SECRET_KEY: randomBytes(32).toString('hex') };
  A = await startTestService(env);
  // A short heartbeat: a reader that takes nothing for one interval is cut off (the last test).
  B = await startTestService({ ...env, SOUK_SSE_HEARTBEAT_MS: '4000' }, { databaseUrl: A.databaseUrl, dataDir });
  apiA = client(A.url);
});
after(async () => {
  await B?.close();
  await A?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The window every resumed reader has: it learns the store's position (`after`), then registers
 * for live events. Events committed through A in between were notified to B's LISTEN connection
 * before anyone there watched the store, so B dropped the notifications; the hub must still hand
 * them out, from `after`, before the next live one. Here the window is made to happen every time:
 * B has provably heard the notifications (a later event of another store, on the same channel,
 * has reached it) before the subscription registers.
 */
test('events committed between a reader learning its position and registering reach it, before the live ones', { skip }, async () => {
  const pg = (await import('pg')).default;
  const db = new pg.Client({ connectionString: A.databaseUrl! });
  await db.connect();
  let sent = 0;
  const order = async (s: { storeId: string; token: string }, name: string): Promise<string> => {
    sent++;
    const res = await apiA('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: name }, contract: false });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  };
  const hub = B.service.deps.realtime;
  // The sentinel store: once B hands out its event, B has heard every notification before it.
  const sentinel = await ownerWithStore(apiA);
  sent += 2;
  const heard = new Set<string>();
  const unsubscribeSentinel = hub.subscribe(sentinel.storeId, (e) => heard.add((e.data.order as { id: string }).id), Number((await db.query('select coalesce(max(seq), 0) as seq from store_events where store_id = $1', [sentinel.storeId])).rows[0].seq));
  const waitUntil = async (done: () => boolean) => {
    for (let i = 0; i < 1_500 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    const results = await Promise.all(
      Array.from({ length: STORES }, async (_, i) => {
        const s = await ownerWithStore(apiA);
        sent += 2;
        for (let k = 0; k < HISTORY; k++) await order(s, `old-${k}`);
        const after = Number((await db.query('select seq from store_event_seqs where store_id = $1', [s.storeId])).rows[0].seq);
        for (let k = 0; k < WINDOW; k++) await order(s, `window-${k}`);
        const marker = await order(sentinel, `sentinel-${i}`);
        await waitUntil(() => heard.has(marker));
        const got: number[] = [];
        const unsubscribe = hub.subscribe(s.storeId, (e) => got.push(e.seq), after);
        try {
          await order(s, `live-${i}`);
          await waitUntil(() => got.length >= WINDOW + 1);
          return { i, heard: heard.has(marker), got, expected: Array.from({ length: WINDOW + 1 }, (_, k) => after + 1 + k) };
        } finally {
          unsubscribe();
        }
      }),
    );
    console.log(`# resume window: ${STORES} stores, ${sent} requests`);
    for (const r of results) {
      assert.ok(r.heard, `store ${r.i}: B heard the window's notifications`);
      assert.deepEqual(r.got, r.expected, `store ${r.i}: the window's events, then the live one, once each, in order`);
    }
  } finally {
    unsubscribeSentinel();
    await db.end();
  }
});

/**
 * A stream resumed from far back whose reader falls behind while the backlog is sent: the stream
 * waits for it (the backlog is read at the reader's pace) rather than cutting it off, and the live
 * event written through the other replica follows the backlog.
 */
test('a reader that falls behind during a long backlog gets all of it, then the live event', { skip }, async () => {
  const READERS = 4;
  const BACKLOG = 600;
  let sent = 0;
  const stores = await Promise.all(Array.from({ length: READERS }, () => ownerWithStore(apiA)));
  sent += READERS * 2;
  // Events of 8 KiB each: 4.8 MiB per store, more than the socket buffers hold.
  await writeHistory(A.databaseUrl!, stores.map((s) => s.storeId), BACKLOG, 8192);
  let startReading!: () => void;
  const later = new Promise<void>((r) => (startReading = r));
  const streams = await Promise.all(
    stores.map((s) => openSse(`${B.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${s.token}`, 'last-event-id': '0' }, { startReading: later })),
  );
  sent += READERS;
  const live = (s: { storeId: string; token: string }, name: string) => {
    sent++;
    return apiA('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: name }, contract: false }).then((res) => assert.equal(res.status, 201, res.text));
  };
  try {
    // Long enough for the server to have written well past what the sockets hold; a live event
    // commits while the backlog is still unread, and another once it has been read.
    await new Promise((r) => setTimeout(r, 1_500));
    await Promise.all(stores.map((s, i) => live(s, `held-${i}`)));
    startReading();
    await Promise.all(streams.map((st) => st.waitFor(BACKLOG + 1, 60_000).catch(() => undefined)));
    await Promise.all(stores.map((s, i) => live(s, `live-${i}`)));
    await Promise.all(streams.map((st) => st.waitFor(BACKLOG + 2, 30_000).catch(() => undefined)));
    console.log(`# slow readers: ${READERS} streams, ${sent} requests`);
    for (const [i, st] of streams.entries()) {
      const ids = st.messages.map((m) => Number(m.id));
      assert.deepEqual(ids, Array.from({ length: BACKLOG + 2 }, (_, k) => k + 1), `stream ${i}${st.ended ? ' (cut)' : ''}: every event once, in order`);
      assert.match(st.messages[BACKLOG].data, new RegExp(`"customerName":"held-${i}"`));
      assert.match(st.messages[BACKLOG + 1].data, new RegExp(`"customerName":"live-${i}"`));
    }
  } finally {
    await Promise.all(streams.map((st) => st.close()));
  }
});

test('a reader that takes nothing of a long backlog for a heartbeat interval is cut off, and its subscription released', { skip }, async () => {
  const s = await ownerWithStore(apiA);
  await writeHistory(A.databaseUrl!, [s.storeId], 600, 8192);
  const hub = B.service.deps.realtime;
  const before = hub.size;
  let startReading!: () => void;
  const never = new Promise<void>((r) => (startReading = r));
  const stream = await openSse(`${B.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${s.token}`, 'last-event-id': '0' }, { startReading: never });
  try {
    assert.equal(hub.size, before + 1, 'the stream is subscribed');
    for (let i = 0; i < 1_500 && hub.size > before; i++) await new Promise((r) => setTimeout(r, 20));
    console.log('# stalled reader: 1 stream, 3 requests');
    assert.equal(hub.size, before, 'the stalled stream was cut off and unsubscribed');
  } finally {
    startReading();
    await stream.close();
  }
});
