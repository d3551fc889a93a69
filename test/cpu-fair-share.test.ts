import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, ownerWithStore, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';

/**
 * Issue 35: one store floods the CPU pool with page bodies that run to the render deadline while
 * another store writes pages and downloads PDFs. The second is served every time (no 503); the
 * first holds at most its share of the threads and the line, and is refused with 429 and
 * Retry-After past it. (/healthz latency under this flood is measured by `npm run bench:hostile`.)
 */
const THREADS = 2;
/** Inline HTML the parser reworks for every tag: seconds of one thread, and nothing the write-time check refuses. */
const SLOW = '<i>'.repeat(87_000);
/** More than the store's share of the line (8 per thread), sent at once: some are refused before any thread frees. */
const WAVE = 24;
const WAVES = 3;

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService({ SOUK_CPU_THREADS: String(THREADS) });
  api = client(svc.url);
});
after(() => svc?.close());

test('a store flooding the CPU pool with deadline-bound renders: another store writes pages and downloads PDFs with no 503; the flood gets 429s, counted', { timeout: 600_000 }, async () => {
  const noisy = await ownerWithStore(api);
  const quiet = await ownerWithStore(api);
  const po = await api('POST', `/v1/finance/purchase-orders?storeId=${quiet.storeId}`, {
    token: quiet.token,
    body: { supplier: { name: 'مورد' }, items: Array.from({ length: 20 }, (_, i) => ({ name: `منتج ${i}`, qtyOrdered: 2, unitCost: 3.5 })) },
  });
  assert.equal(po.status, 201, po.text);

  let flooding = true;
  const flood = (async () => {
    const answers: ApiResponse[] = [];
    for (let w = 0; w < WAVES; w++) {
      answers.push(...(await Promise.all(Array.from({ length: WAVE }, () => api('POST', `/v1/pages?storeId=${noisy.storeId}`, { token: noisy.token, body: { title: 'Slow', body: SLOW } })))));
    }
    flooding = false;
    return answers;
  })();
  // The quiet store works one request at a time for as long as the flood lasts.
  const served: ApiResponse[] = [];
  for (let i = 0; flooding || i < 10; i++) {
    served.push(
      i % 3 === 2
        ? await api('GET', `/v1/finance/purchase-orders/${po.body.id}/pdf?storeId=${quiet.storeId}`, { token: quiet.token })
        : await api('POST', `/v1/pages?storeId=${quiet.storeId}`, { token: quiet.token, body: { title: `Page ${i}`, body: `# Page ${i}\n\nSome *text*.` } }),
    );
  }
  const refused = await flood;

  assert.deepEqual(served.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.text.slice(0, 200)}`), [], 'the quiet store is served every time');
  const unexpected = refused.filter((r) => !(r.status === 429 && /^[1-9]\d*$/.test(r.headers.get('retry-after') ?? '')) && !(r.status === 400 && r.body.errors?.[0]?.path === 'body') && r.status !== 201);
  assert.deepEqual(unexpected.map((r) => `${r.status} ${r.text.slice(0, 200)}`), [], 'the flood gets 429 with Retry-After, or its own 400 at body, never a 5xx');
  const limited = refused.filter((r) => r.status === 429).length;
  assert.ok(limited >= WAVE - 2 * THREADS * 8, `past its share of the line the store is refused at once (${limited} of ${refused.length})`);
  const stats = svc.service.deps.cpu.stats;
  assert.ok(stats.limited >= limited, `the pool counts its refusals (${stats.limited})`);
  assert.equal(stats.saturated, 0, 'nobody met a full pool');
});
