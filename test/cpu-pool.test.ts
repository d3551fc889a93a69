// The CPU pool on its own: deadlines, refusals crossing threads, saturation (503 with
// Retry-After), and a pool that keeps serving after a thread was stopped.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCpuPool } from '../src/cpu/pool.js';
import { RENDER_PAGE } from '../src/domains/pages/render.js';
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
