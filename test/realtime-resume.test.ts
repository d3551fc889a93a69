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
const HISTORY = 12;
const DURING = 8;

let A: TestService;
let B: TestService;
let apiA: Api;
const dataDir = mkdtempSync(join(tmpdir(), 'souk-resume-'));
before(async () => {
  if (skip) return;
  const env = { SOUK_SECRET_KEY: randomBytes(32).toString('hex') };
  A = await startTestService(env);
  B = await startTestService(env, { databaseUrl: A.databaseUrl, dataDir });
  apiA = client(A.url);
});
after(async () => {
  await B?.close();
  await A?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('streams resumed on one replica while another writes: backlog, then every live event, no gap', { skip }, async () => {
  let sent = 0;
  const write = async (s: { storeId: string; token: string }, name: string) => {
    sent++;
    const res = await apiA('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: name }, contract: false });
    assert.equal(res.status, 201, res.text);
  };
  const results = await Promise.all(
    Array.from({ length: STORES }, async (_, i) => {
      const s = await ownerWithStore(apiA);
      sent += 2;
      for (let k = 0; k < HISTORY; k++) await write(s, `old-${k}`);
      // Resumed from half-way while the store keeps being written through A: events commit
      // before, during and after the stream reads its backlog.
      const resumeAt = HISTORY / 2;
      const writing = (async () => {
        for (let k = 0; k < DURING; k++) await write(s, `during-${k}`);
      })();
      const stream = await openSse(`${B.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${s.token}`, 'last-event-id': String(resumeAt) });
      sent++;
      try {
        await writing;
        await stream.waitFor(HISTORY + DURING - resumeAt, 30_000).catch(() => undefined);
        await write(s, `live-${i}`);
        const got = await stream.waitFor(HISTORY + DURING + 1 - resumeAt, 30_000).catch(() => stream.messages.slice());
        return { i, ids: got.map((m) => Number(m.id)), expected: Array.from({ length: HISTORY + DURING + 1 - resumeAt }, (_, k) => resumeAt + 1 + k) };
      } finally {
        await stream.close();
      }
    }),
  );
  console.log(`# resumed streams: ${STORES} stores, ${sent} requests`);
  for (const r of results) assert.deepEqual(r.ids, r.expected, `store ${r.i}`);
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
