// The CPU pool on its own: deadlines, refusals crossing threads, saturation (503 with
// Retry-After), and a pool that keeps serving after a thread was stopped.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCpuPool } from '../src/cpu/pool.js';
import { inlineWork, RENDER_PAGE, renderBody } from '../src/domains/pages/render.js';
import { CHECK_SCHEMAS } from '../src/domains/templates/json-schema.js';
import { AppError } from '../src/core/errors.js';
import { createLogger } from '../src/core/log.js';
import type { CpuLimits, OverBudget } from '../src/core/cpu.js';

// A short line, so the saturation test reaches past it with a dozen requests.
const pool = createCpuPool({ threads: 1, log: createLogger('silent'), linePerThread: 8 });
after(() => pool.close());

class Over extends Error {
  constructor(readonly reason: OverBudget) {
    super(`over budget: ${reason}`);
  }
}
const limits = (timeoutMs: number, extra: Partial<CpuLimits> = {}): CpuLimits => ({ timeoutMs, overBudget: (reason) => new Over(reason), ...extra });
/** Quadratic for the Markdown parser: seconds of one thread. */
const BOMB = '*a'.repeat(49_000);
/** Far past any deadline below on the fastest machine: about 10× the bomb's work. */
const BIG_BOMB = '*a'.repeat(160_000);

describe('the CPU pool', () => {
  test('a task past its deadline is stopped (over budget: time) and the next task runs on a fresh thread', async () => {
    await assert.rejects(pool.run(RENDER_PAGE, BOMB, limits(300)), (err) => err instanceof Over && err.reason === 'time');
    assert.equal(await pool.run(RENDER_PAGE, '*hi*', limits(10_000)), '<p><em>hi</em></p>\n');
  });

  test("a task's refusal crosses the thread as the same AppError", async () => {
    const err = await pool.run(RENDER_PAGE, '>'.repeat(100), limits(10_000)).catch((e: unknown) => e);
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'VALIDATION_FAILED');
    assert.deepEqual(err.errors, [{ path: 'body', message: 'nests block quotes or lists more than 64 levels deep' }]);
    const bad = await pool.run(CHECK_SCHEMAS, [{ schema: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } }, schemaPath: 'propsSchema' }], limits(10_000)).catch((e: unknown) => e);
    assert.ok(bad instanceof AppError && bad.errors?.[0].path === 'propsSchema', String(bad));
  });

  test('saturated: requests get 503 with Retry-After (at once past the line, after a bounded wait in it); queue jobs wait their turn', async () => {
    const bomb = pool.run(RENDER_PAGE, BIG_BOMB, limits(4_000)).catch((e: unknown) => e);
    const job = pool.run(RENDER_PAGE, 'job', limits(10_000, { queueWaitMs: 60_000 }));
    const requests = await Promise.all(Array.from({ length: 12 }, () => pool.run(RENDER_PAGE, 'request', limits(10_000)).catch((e: unknown) => e)));
    for (const r of requests) {
      assert.ok(r instanceof AppError, String(r));
      assert.equal(r.code, 'UNAVAILABLE');
      assert.match(r.headers?.['retry-after'] ?? '', /^[1-9]\d*$/);
    }
    const over = await bomb;
    assert.ok(over instanceof Over && over.reason === 'time', String(over));
    assert.equal(await job, '<p>job</p>\n');
    assert.ok(pool.stats.saturated >= 12);
    assert.equal(pool.stats.running, 0);
    assert.equal(pool.stats.waiting, 0);
  });
});

test('a burst of small tasks waits its turn in the default line instead of being refused', async () => {
  const wide = createCpuPool({ threads: 1, log: createLogger('silent') });
  try {
    const pages = await Promise.all(Array.from({ length: 48 }, (_, i) => wide.run(RENDER_PAGE, `page ${i}`, limits(10_000))));
    assert.deepEqual(pages, Array.from({ length: 48 }, (_, i) => `<p>page ${i}</p>\n`));
    assert.equal(wide.stats.saturated, 0);
  } finally {
    await wide.close();
  }
});

describe('a fair share per store and per caller', () => {
  const owner = (store: string | null, caller: string) => ({ store, caller: `user:${caller}` });
  const isLimited = (r: unknown) => r instanceof AppError && r.code === 'RATE_LIMITED' && /^[1-9]\d*$/.test(r.headers?.['retry-after'] ?? '');

  test('one store flooding with renders that run to their deadline holds at most half the threads and its share of the line; another store is served at once, every time', async () => {
    const fair = createCpuPool({ threads: 2, log: createLogger('silent'), ownerLinePerThread: 2 });
    try {
      const noisy = owner('noisy', 'a');
      // 4 fit in the noisy store's share of the line (2 per thread), 2 are refused at once.
      const flood = Array.from({ length: 6 }, () => fair.run(RENDER_PAGE, BIG_BOMB, limits(1_500, { owner: noisy })).catch((e: unknown) => e));
      const quiet: string[] = [];
      for (let i = 0; i < 10; i++) quiet.push(await fair.run(RENDER_PAGE, `page ${i}`, limits(10_000, { owner: owner('quiet', 'b') })));
      assert.deepEqual(quiet, Array.from({ length: 10 }, (_, i) => `<p>page ${i}</p>\n`));
      const outcomes = await Promise.all(flood);
      for (const r of outcomes) assert.ok((r instanceof Over && r.reason === 'time') || isLimited(r), String(r));
      assert.ok(outcomes.filter(isLimited).length >= 2, 'past its share of the line the store is refused');
      assert.equal(fair.stats.saturated, 0);
      assert.ok(fair.stats.limited >= 2);
    } finally {
      await fair.close();
    }
  });

  test('work stopped at its deadline is charged to the store and the caller: past the budget both get 429 with Retry-After at once, others do not', async () => {
    const strict = createCpuPool({ threads: 2, log: createLogger('silent'), stoppedBudgetMs: 1_000 });
    try {
      await assert.rejects(strict.run(RENDER_PAGE, BIG_BOMB, limits(1_500, { owner: owner('spent', 'a') })), (err) => err instanceof Over && err.reason === 'time');
      await assert.rejects(strict.run(RENDER_PAGE, 'small', limits(10_000, { owner: owner('spent', 'b') })), isLimited, 'the store has spent its budget');
      await assert.rejects(strict.run(RENDER_PAGE, 'small', limits(10_000, { owner: owner('other', 'a') })), isLimited, 'the caller has spent its budget');
      assert.equal(await strict.run(RENDER_PAGE, 'small', limits(10_000, { owner: owner('other', 'b') })), '<p>small</p>\n');
      assert.equal(await strict.run(RENDER_PAGE, 'job', limits(10_000)), '<p>job</p>\n', 'queue jobs have no owner to charge');
    } finally {
      await strict.close();
    }
  });

  test('one caller across stores has one share of the threads and the line', async () => {
    const fair = createCpuPool({ threads: 2, log: createLogger('silent'), ownerLinePerThread: 1 });
    try {
      // The caller's line is 2 tasks whichever stores they name: the third is refused at once.
      const flood = ['s1', 's2', 's3'].map((s) => fair.run(RENDER_PAGE, BIG_BOMB, limits(1_500, { owner: owner(s, 'a') })).catch((e: unknown) => e));
      assert.equal(await fair.run(RENDER_PAGE, 'other', limits(10_000, { owner: owner('s4', 'b') })), '<p>other</p>\n');
      const outcomes = await Promise.all(flood);
      assert.ok(isLimited(outcomes[2]), String(outcomes[2]));
      for (const r of outcomes.slice(0, 2)) assert.ok((r instanceof Over && r.reason === 'time') || isLimited(r), String(r));
    } finally {
      await fair.close();
    }
  });
});

test('page bodies built to make the parser work are refused before they take a thread; ordinary ones of the same size are not', async () => {
  const counting = createCpuPool({ threads: 1, log: createLogger('silent') });
  try {
    const owner = { store: 'st', caller: 'user:u' };
    for (const body of ['*a'.repeat(49_000), '*a\n'.repeat(4_000), '_a'.repeat(3_000), '[a]('.repeat(1_000), ('*a\n'.repeat(1_500) + '\n').repeat(3)]) {
      const err = await renderBody(counting, body, owner).catch((e: unknown) => e);
      assert.ok(err instanceof AppError && err.code === 'VALIDATION_FAILED', String(err));
      assert.equal(err.errors?.[0].path, 'body');
      assert.match(err.errors![0].message, /emphasis marks/);
    }
    assert.equal(counting.stats.running + counting.stats.waiting + counting.stats.overBudget, 0, 'no thread was taken');
    const table = `| a | b |\n|---|---|\n${'| **bold** | *em* |\n'.repeat(2_000)}`;
    const code = `\`\`\`c\n${'int *p = *q * 2; my_var_name = 1;\n'.repeat(2_000)}\`\`\`\n`;
    const list = '- **item** with a [link](https://example.com) and _stress_\n'.repeat(1_000);
    for (const body of [table, code, list]) assert.ok(inlineWork(body) <= 1, body.slice(0, 40));
    assert.match(await renderBody(counting, code, owner), /<pre><code class="language-c">/);
  } finally {
    await counting.close();
  }
});
