import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AppError } from '../core/errors.js';
import type { CpuLimits, CpuOwner, CpuPool, CpuReply, CpuTask, OverBudget } from '../core/cpu.js';
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

/**
 * How long a request's task may wait for a thread while the line does not move (no task it
 * waits behind began or ended) before the pool answers 503 (or 429, when its own store's or
 * caller's tasks are what it waits behind). A line that moves is waited in: on a loaded machine a
 * burst of small tasks takes longer, and is still served.
 */
const QUEUE_WAIT_MS = 2_000;
/**
 * Tasks waiting per thread, at most; past it the pool answers 503 at once. Most tasks take a
 * millisecond (a page of a few KB), so a burst of writes must fit in the line; slow tasks are
 * bounded by the wait, not by the line.
 */
const QUEUE_PER_THREAD = 64;
/** However the line moves, a task waits at most this many of its waits. */
const MOVING_LINE_WAITS = 15;
/** Tasks one store, or one caller, may have running or waiting per thread: the rest of the line is everyone else's. */
const OWNER_LINE_PER_THREAD = 8;
/**
 * Thread time one store, or one caller, may spend on tasks stopped over their budget (their
 * deadline or heap) in a window; past it their tasks are refused with 429 until the spend drains
 * (at the same rate). An ordinary task never comes near its deadline: this spend is a body built
 * to make the renderer work, repeated.
 */
const STOPPED_BUDGET_MS = 10_000;
const STOPPED_WINDOW_MS = 60_000;
/** A worker's heap: far above any task within its size budget, far below the machine. */
const WORKER_HEAP_MB = 512;
/** A thread that has not begun a task this long after taking it (starting up, loading modules) is taken for stuck. */
const START_LIMIT_MS = 60_000;
/** How often a task's thread is looked at until it begins the task. */
const BEGIN_POLL_MS = 25;

/**
 * A task's deadline counts from the moment its thread begins it (the worker stamps the time in
 * shared memory), not from dispatch: a thread's own start and module loading are not the task's.
 */
function deadline(stamp: BigInt64Array, budgetMs: number, onBegin: () => void): { signal: AbortSignal; began: () => number; clear: () => void } {
  const ac = new AbortController();
  const dispatched = Date.now();
  const began = () => Number(Atomics.load(stamp, 0));
  let seen = false;
  let timer: NodeJS.Timeout;
  const check = () => {
    const at = began();
    if (at && !seen) {
      seen = true;
      onBegin();
    }
    const left = at ? at + budgetMs - Date.now() : dispatched + START_LIMIT_MS - Date.now();
    if (left <= 0) ac.abort();
    // Not begun yet: look again soon; begun: wake when its time is up.
    else timer = setTimeout(check, at ? left : Math.min(left, BEGIN_POLL_MS));
  };
  timer = setTimeout(check, BEGIN_POLL_MS);
  return {
    signal: ac.signal,
    began,
    clear: () => {
      clearTimeout(timer);
      if (!seen) onBegin();
    },
  };
}

export interface CpuPoolOptions {
  threads: number;
  log: Logger;
  /** Tasks waiting per thread before the pool refuses at once (default QUEUE_PER_THREAD). */
  linePerThread?: number;
  /** Tasks one store or caller may have running or waiting, per thread (default OWNER_LINE_PER_THREAD). */
  ownerLinePerThread?: number;
  /** Thread time of stopped tasks a store or caller may spend per minute (default STOPPED_BUDGET_MS). */
  stoppedBudgetMs?: number;
}

export interface RunningCpuPool extends CpuPool {
  close(): Promise<void>;
}

const saturated = (retryAfter: number) =>
  new AppError('UNAVAILABLE', `The server is busy with other rendering work; retry in ${retryAfter} s`, undefined, { 'retry-after': String(retryAfter) });

const seconds = (ms: number) => Math.max(1, Math.ceil(Math.min(ms, 60_000) / 1000));

/** Node's codes for a worker that ran out of heap. */
const OUT_OF_MEMORY = new Set(['ERR_WORKER_OUT_OF_MEMORY']);

/** What the pool keeps per store and per caller with tasks in it (or a recent stopped spend). */
interface Share {
  /** Running and waiting. */
  tasks: number;
  running: number;
  /** When one of its tasks last began or ended. */
  moved: number;
  /** Thread time of its stopped tasks, draining at the budget per STOPPED_WINDOW_MS since `spentAt`. */
  spent: number;
  spentAt: number;
}

interface Waiter {
  keys: string[];
  since: number;
  waitMs: number;
  timer?: NodeJS.Timeout;
  wake: () => void;
  fail: (err: Error) => void;
}

const keysOf = (owner: CpuOwner | undefined): string[] => (!owner ? [] : owner.store ? [`store:${owner.store}`, `caller:${owner.caller}`] : [`caller:${owner.caller}`]);

/**
 * A fixed number of threads; each task runs on a free thread under its own deadline (past it the
 * thread is stopped and replaced) or waits in a bounded line for one. The line is kept here
 * rather than in piscina so that a task's deadline starts when a thread takes it, not while it
 * waits, a full line answers 503 with Retry-After at once, and the line is shared fairly: a
 * store, or a caller, runs on at most half the threads (rounded up), holds at most its share of
 * the line, and after spending its budget on tasks stopped over theirs is refused with 429 for a
 * while. One store's work that runs to its deadline then never keeps another's from a thread.
 */
export function createCpuPool(opts: CpuPoolOptions): RunningCpuPool {
  const threads = opts.threads;
  const line = threads * (opts.linePerThread ?? QUEUE_PER_THREAD);
  const ownerLine = threads * (opts.ownerLinePerThread ?? OWNER_LINE_PER_THREAD);
  const ownerThreads = Math.ceil(threads / 2);
  const budget = opts.stoppedBudgetMs ?? STOPPED_BUDGET_MS;
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
  /** Tasks taken by a thread that has not begun them yet (starting up): the line still moves. */
  let starting = 0;
  /** When any task last began or ended. */
  let moved = Date.now();
  const waiting: Waiter[] = [];
  const shares = new Map<string, Share>();
  const refused = { saturated: 0, overBudget: 0, limited: 0 };
  let closed = false;

  const shareOf = (key: string): Share => {
    let s = shares.get(key);
    if (!s) shares.set(key, (s = { tasks: 0, running: 0, moved: Date.now(), spent: 0, spentAt: 0 }));
    return s;
  };
  const spentNow = (s: Share, now: number) => Math.max(0, s.spent - ((now - s.spentAt) * budget) / STOPPED_WINDOW_MS);
  /** A share with nothing in the pool and nothing left to drain is forgotten. */
  const forget = (key: string) => {
    const s = shares.get(key);
    if (s && s.tasks === 0 && spentNow(s, Date.now()) === 0) shares.delete(key);
  };
  const atOwnLimit = (keys: string[]) => keys.some((k) => (shares.get(k)?.running ?? 0) >= ownerThreads);

  const limited = (message: string, retryAfterMs: number) => {
    refused.limited++;
    const after = seconds(retryAfterMs);
    return new AppError('RATE_LIMITED', `${message}; retry in ${after} s`, undefined, { 'retry-after': String(after) });
  };
  /** 429 when the owner has spent its budget of stopped work; null while it has budget left. */
  const pastBudget = (keys: string[]): Error | null => {
    const now = Date.now();
    for (const key of keys) {
      const s = shares.get(key);
      const over = s ? spentNow(s, now) - budget : 0;
      if (over > 0) {
        forget(key);
        return limited(`Rendering work of this ${key.startsWith('store:') ? 'store' : 'caller'} ran past its budget too often`, (over * STOPPED_WINDOW_MS) / budget);
      }
    }
    return null;
  };
  /** Which owner a refusal names: the store when it is the store's share that is taken. */
  const whose = (keys: string[], taken: (s: Share) => boolean) => {
    const store = shares.get(keys[0]);
    return keys[0].startsWith('store:') && store && taken(store) ? 'store' : 'caller';
  };
  const timedOut = (w: Waiter) => {
    if (atOwnLimit(w.keys)) return limited(`This ${whose(w.keys, (s) => s.running >= ownerThreads)} has its share of the rendering threads busy`, w.waitMs);
    refused.saturated++;
    return saturated(seconds(w.waitMs));
  };

  const begin = (keys: string[]) => {
    running++;
    starting++;
    for (const k of keys) shareOf(k).running++;
  };
  const leave = (keys: string[]) => {
    for (const k of keys) {
      shareOf(k).tasks--;
      forget(k);
    }
  };
  /** Free threads go to the first waiters whose store and caller are below their share of threads. */
  const dispatch = () => {
    for (let i = 0; i < waiting.length && running < threads; ) {
      const w = waiting[i];
      if (atOwnLimit(w.keys)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      w.wake();
    }
  };
  /** A task began or ended: the line moved, for everyone and for its owners. */
  const progress = (keys: string[]) => {
    moved = Date.now();
    for (const k of keys) {
      const s = shares.get(k);
      if (s) s.moved = moved;
    }
  };

  /** A thread for the task: at once, after a wait in a line that moves, or a refusal. */
  const take = async (keys: string[], waitMs: number): Promise<void> => {
    const spent = pastBudget(keys);
    if (spent) throw spent;
    if (keys.some((k) => (shares.get(k)?.tasks ?? 0) >= ownerLine)) {
      throw limited(`This ${whose(keys, (s) => s.tasks >= ownerLine)} has its share of the rendering line taken`, QUEUE_WAIT_MS);
    }
    // Free threads and waiters together means every waiter is held by its own share.
    if (running < threads && !atOwnLimit(keys)) {
      for (const k of keys) shareOf(k).tasks++;
      begin(keys);
      return;
    }
    if (waiting.length >= line && waitMs <= QUEUE_WAIT_MS) {
      refused.saturated++;
      throw saturated(seconds(QUEUE_WAIT_MS));
    }
    for (const k of keys) shareOf(k).tasks++;
    await new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        keys,
        since: Date.now(),
        waitMs,
        wake: () => {
          clearTimeout(w.timer);
          // Its owner may have spent its budget while it waited.
          const spentMeanwhile = pastBudget(keys);
          if (spentMeanwhile) {
            leave(keys);
            return reject(spentMeanwhile);
          }
          begin(keys);
          resolve();
        },
        fail: (err: Error) => {
          clearTimeout(w.timer);
          leave(keys);
          reject(err);
        },
      };
      /**
       * Refused once nothing it waits behind has begun or ended for its whole wait and no thread
       * is starting, or after MOVING_LINE_WAITS waits however the line moves.
       */
      const check = () => {
        const behindOwn = atOwnLimit(keys);
        const last = behindOwn ? Math.min(...keys.filter((k) => shares.get(k)!.running >= ownerThreads).map((k) => shares.get(k)!.moved)) : moved;
        const now = Date.now();
        const idle = now - Math.max(w.since, last);
        if (now - w.since < waitMs * MOVING_LINE_WAITS && (idle < waitMs || (!behindOwn && starting > 0))) {
          w.timer = setTimeout(check, Math.max(waitMs - idle, BEGIN_POLL_MS));
          return;
        }
        waiting.splice(waiting.indexOf(w), 1);
        w.fail(timedOut(w));
        dispatch();
      };
      w.timer = setTimeout(check, waitMs);
      waiting.push(w);
    });
  };
  const release = (keys: string[]) => {
    running--;
    for (const k of keys) shareOf(k).running--;
    leave(keys);
    progress(keys);
    dispatch();
  };

  const over = (limits: CpuLimits, reason: OverBudget): Error => {
    refused.overBudget++;
    return limits.overBudget(reason);
  };
  /** A task stopped over its budget: the thread time it took counts against its owners' budgets. */
  const charge = (keys: string[], ms: number) => {
    const now = Date.now();
    for (const k of keys) {
      const s = shareOf(k);
      s.spent = spentNow(s, now) + ms;
      s.spentAt = now;
    }
    // Shares kept only for their spend are dropped once drained, looked at when they pile up.
    if (shares.size > 1_000) for (const k of [...shares.keys()]) forget(k);
  };

  return {
    get stats() {
      return { threads, running, waiting: waiting.length, ...refused };
    },
    async run<I, O>(task: CpuTask<I, O>, input: I, limits: CpuLimits): Promise<O> {
      if (closed) throw saturated(1);
      const keys = keysOf(limits.owner);
      await take(keys, limits.queueWaitMs ?? QUEUE_WAIT_MS);
      const stamp = new BigInt64Array(new SharedArrayBuffer(8));
      const time = deadline(stamp, limits.timeoutMs, () => {
        starting--;
        progress(keys);
      });
      let reply: CpuReply;
      try {
        reply = (await piscina.run({ name: task.name, input, stamp }, { signal: time.signal })) as CpuReply;
      } catch (err) {
        const stopped = time.signal.aborted ? 'time' : OUT_OF_MEMORY.has((err as { code?: string }).code ?? '') ? 'memory' : null;
        if (stopped) {
          const began = time.began();
          if (began) charge(keys, Date.now() - began);
          throw over(limits, stopped);
        }
        // Copying an input nested deeper than the stack allows fails here, before the thread sees it.
        if (err instanceof RangeError && /call stack/i.test(err.message)) throw over(limits, 'depth');
        if (closed) throw saturated(1);
        opts.log.error({ err, task: task.name }, 'cpu: a task failed');
        throw err;
      } finally {
        time.clear();
        release(keys);
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
