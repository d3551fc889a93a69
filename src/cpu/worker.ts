// The CPU pool's worker thread: every task the pool runs, by name. A thread loads this module once
// and then runs one task at a time; its deadline is kept by the pool (src/cpu/pool.ts).
import type { CpuReply, CpuTask } from '../core/cpu.js';
import { AppError } from '../core/errors.js';
import { loadSanitizer, RENDER_PAGE, renderPage } from '../domains/pages/render.js';
import { CHECK_SCHEMAS, checkSchemas } from '../domains/templates/json-schema.js';
import { CHECK_PROPS, checkProps } from '../domains/ai/prompt.js';
import { loadPdfKit, RENDER_PDF, renderPdfTask } from '../domains/purchase-orders/purchase-order.pdf.js';
import { DRAW_IMAGE, drawImageTask, DRAW_SWATCH, drawSwatchTask } from '../providers/local-images/draw.js';
import { FIT_PNG, fitPngTask } from '../providers/local-images/png.js';

interface Implementation {
  run: (input: never) => unknown;
  /** Loads what the task needs (modules, fonts) once per thread, before its deadline counts. */
  load?: () => unknown;
}

/** A task's implementation, checked against the types its name was declared with. */
const implement = <I, O>(task: CpuTask<I, O>, run: (input: I) => O | Promise<O>, load?: () => unknown): [string, Implementation] => [task.name, { run: run as Implementation['run'], load }];

/** Loads done in this thread: a first render or PDF loads for a second or more, which is not the input's cost. */
const loaded = new Map<string, Promise<unknown>>();

const TASKS = new Map<string, Implementation>([
  implement(RENDER_PAGE, renderPage, loadSanitizer),
  implement(CHECK_SCHEMAS, checkSchemas),
  implement(CHECK_PROPS, checkProps),
  implement(RENDER_PDF, renderPdfTask, loadPdfKit),
  implement(DRAW_IMAGE, drawImageTask),
  implement(DRAW_SWATCH, drawSwatchTask),
  implement(FIT_PNG, fitPngTask),
]);

const isStackOverflow = (err: unknown) => err instanceof RangeError && /call stack/i.test(err.message);

export default async function runTask({ name, input, stamp }: { name: string; input: unknown; stamp: BigInt64Array }): Promise<CpuReply> {
  const task = TASKS.get(name);
  if (!task) throw new Error(`no CPU task named ${name}`);
  if (task.load) {
    if (!loaded.has(name)) loaded.set(name, Promise.resolve(task.load()));
    await loaded.get(name);
  }
  // The pool's deadline for the task counts from here.
  Atomics.store(stamp, 0, BigInt(Date.now()));
  try {
    return { ok: true, value: await (task.run as (input: unknown) => unknown)(input) };
  } catch (err) {
    // Refusals cross as data: an AppError's class does not survive the trip between threads.
    if (err instanceof AppError) return { ok: false, code: err.code, message: err.message, errors: err.errors };
    if (isStackOverflow(err)) return { ok: false, over: 'depth' };
    throw err;
  }
}
