import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AppError } from '../core/errors.js';
import type { CpuLimits, CpuPool, CpuReply, CpuTask, OverBudget } from '../core/cpu.js';
import type { Logger } from '../core/log.js';

/**
 * The worker's module: beside this file under tsx and tsc (`worker.ts`, `worker.js`), and its
 * own file beside the start bundle when bundled (scripts/bundle.mjs builds `cpu-worker.mjs`).
 */
function workerFile(): string {
  const here = import.meta.url;
  const sibling = here.endsWith('.ts') ? './worker.ts' : here.endsWith('/pool.js') ? './worker.js' : './cpu-worker.mjs';
  return fileURLToPath(new URL(sibling, here));
}

/** How long a request's task may wait for a thread before the pool answers 503. */
const QUEUE_WAIT_MS = 2_000;
/**
 * Tasks waiting per thread, at most; past it the pool answers 503 at once. Most tasks take a
 * millisecond (a page of a few KB), so a burst of writes must fit in the line; slow tasks are
 * bounded by the wait, not by the line.
 */
const QUEUE_PER_THREAD = 64;
/** A worker's heap: far above any task within its size budget, far below the machine. */
const WORKER_HEAP_MB = 512;
/** A thread that has not begun a task this long after taking it (starting up, loading modules) is taken for stuck. */
const START_LIMIT_MS = 60_000;

/**
 * A task's deadline counts from the moment its thread begins it (the worker stamps the time in
 * shared memory), not from dispatch: a thread's own start and module loading are not the task's.
 */
function deadline(stamp: BigInt64Array, budgetMs: number): { signal: AbortSignal; clear: () => void } {
  const ac = new AbortController();
  const dispatched = Date.now();
  let timer: NodeJS.Timeout;
  const check = () => {
    const began = Number(Atomics.load(stamp, 0));
    const left = began ? began + budgetMs - Date.now() : dispatched + START_LIMIT_MS - Date.now();
    if (left <= 0) ac.abort();
    // Not begun yet: look again soon; begun: wake when its time is up.
    else timer = setTimeout(check, began ? left : Math.min(left, 50));
  };
  timer = setTimeout(check, budgetMs);
  return { signal: ac.signal, clear: () => clearTimeout(timer) };
}

export interface CpuPoolOptions {
  threads: number;
  log: Logger;
  /** Tasks waiting per thread before the pool refuses at once (default QUEUE_PER_THREAD). */
  linePerThread?: number;
}

export interface RunningCpuPool extends CpuPool {
  close(): Promise<void>;
}

const saturated = (retryAfter: number) =>
  new AppError('UNAVAILABLE', `The server is busy with other rendering work; retry in ${retryAfter} s`, undefined, { 'retry-after': String(retryAfter) });

/** Node's codes for a worker that ran out of heap. */
const OUT_OF_MEMORY = new Set(['ERR_WORKER_OUT_OF_MEMORY']);

/**
 * A fixed number of threads; each task runs on a free thread under its own deadline (past it the
 * thread is stopped and replaced) or waits a bounded time in a bounded line for one. The line is
 * kept here rather than in piscina so that a task's deadline starts when a thread takes it, not
 * while it waits, and a full line answers 503 with Retry-After at once.
 */
export function createCpuPool(opts: CpuPoolOptions): RunningCpuPool {
  const threads = opts.threads;
  const piscina = new Piscina({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: threads,
    // Threads start on first use and stay a while: a start costs more than most tasks.
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    // The event loop's thread keeps its priority over rendering (needs the optional @napi-rs/nice).
    niceIncrement: 10,
    // Between tasks a thread waits on a message, not on Atomics: tasks load modules asynchronously.
    atomics: 'disabled',
  });
  let running = 0;
  const waiting: Array<{ wake: () => void; fail: (err: Error) => void }> = [];
  const refused = { saturated: 0, overBudget: 0 };
  let closed = false;

  const busy = (waitMs: number) => {
    refused.saturated++;
    return saturated(Math.max(1, Math.ceil(Math.min(waitMs, 30_000) / 1000)));
  };
  /** A thread for the task: at once, after a bounded wait in a bounded line, or 503. */
  const take = async (queueWaitMs: number): Promise<void> => {
    if (running < threads) {
      running++;
      return;
    }
    if (waiting.length >= threads * (opts.linePerThread ?? QUEUE_PER_THREAD) && queueWaitMs <= QUEUE_WAIT_MS) throw busy(QUEUE_WAIT_MS);
    await new Promise<void>((resolve, reject) => {
      const entry = {
        wake: () => {
          clearTimeout(timer);
          running++;
          resolve();
        },
        fail: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(entry), 1);
        reject(busy(queueWaitMs));
      }, queueWaitMs);
      waiting.push(entry);
    });
  };
  const release = () => {
    running--;
    waiting.shift()?.wake();
  };

  const over = (limits: CpuLimits, reason: OverBudget): Error => {
    refused.overBudget++;
    return limits.overBudget(reason);
  };

  return {
    get stats() {
      return { threads, running, waiting: waiting.length, ...refused };
    },
    async run<I, O>(task: CpuTask<I, O>, input: I, limits: CpuLimits): Promise<O> {
      if (closed) throw saturated(1);
      await take(limits.queueWaitMs ?? QUEUE_WAIT_MS);
      const stamp = new BigInt64Array(new SharedArrayBuffer(8));
      const time = deadline(stamp, limits.timeoutMs);
      let reply: CpuReply;
      try {
        reply = (await piscina.run({ name: task.name, input, stamp }, { signal: time.signal })) as CpuReply;
      } catch (err) {
        if (time.signal.aborted) throw over(limits, 'time');
        if (OUT_OF_MEMORY.has((err as { code?: string }).code ?? '')) throw over(limits, 'memory');
        // Copying an input nested deeper than the stack allows fails here, before the thread sees it.
        if (err instanceof RangeError && /call stack/i.test(err.message)) throw over(limits, 'depth');
        if (closed) throw saturated(1);
        opts.log.error({ err, task: task.name }, 'cpu: a task failed');
        throw err;
      } finally {
        time.clear();
        release();
      }
      if (reply.ok) return reply.value as O;
      if ('over' in reply) throw over(limits, reply.over);
      throw new AppError(reply.code, reply.message, reply.errors);
    },
    async close() {
      closed = true;
      for (const w of waiting.splice(0)) w.fail(saturated(1));
      await piscina.destroy();
    },
  };
}
