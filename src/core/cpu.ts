import type { Ctx } from './context.js';
import type { ErrorCode, FieldError } from './errors.js';

/**
 * CPU-heavy work (rendering Markdown and PDFs, drawing PNGs, JSON Schemas with user-written
 * patterns) runs in a bounded pool of worker threads, never on the event loop. A domain names
 * its task here (`cpuTask`), implements it in a plain function, and the pool's worker
 * (src/cpu/worker.ts) lists the implementations; callers reach the pool through `deps.cpu`.
 */
export interface CpuTask<I, O> {
  readonly name: string;
  /** Carries the input and output types only. */
  readonly _types?: (input: I) => O;
}

export const cpuTask = <I, O>(name: string): CpuTask<I, O> => ({ name });

/** Why a task was stopped: it ran past its deadline, nested deeper than the stack, or outgrew its heap. */
export type OverBudget = 'time' | 'depth' | 'memory';

export interface CpuLimits {
  /** How long the task may run once a thread took it. */
  timeoutMs: number;
  /** The error for a task stopped over its budget: for a request, a 4xx naming what the caller can change. */
  overBudget: (reason: OverBudget) => Error;
  /**
   * How long the task may wait for a free thread before the pool counts as saturated (503 with
   * Retry-After). Requests keep the default; queue jobs wait longer, as nobody is waiting on them.
   */
  queueWaitMs?: number;
  /**
   * Whose request the task serves. A request's task names its owner: each store and each caller
   * then gets a fair share of the pool and a budget of work stopped over budget (429 with
   * Retry-After past either). Queue jobs name none.
   */
  owner?: CpuOwner;
}

/** A request's store (null when it names none) and caller (the user, or the address of an anonymous one). */
export interface CpuOwner {
  store: string | null;
  caller: string;
}

export const cpuOwner = (ctx: Ctx, storeId: string | null): CpuOwner => ({ store: storeId, caller: ctx.actor ? `user:${ctx.actor.userId}` : `ip:${ctx.ip}` });

export interface CpuPool {
  run<I, O>(task: CpuTask<I, O>, input: I, limits: CpuLimits): Promise<O>;
  /**
   * Tasks running and waiting now; refusals since start (saturated: 503, the pool is full;
   * overBudget: stopped or refused past a task's budget; limited: 429, past an owner's share or
   * its budget of stopped work).
   */
  readonly stats: { threads: number; running: number; waiting: number; saturated: number; overBudget: number; limited: number };
}

/** A worker's answer: the value, or a refusal the task raised as an AppError (its class does not cross threads). */
export type CpuReply = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string; errors?: FieldError[] } | { ok: false; over: OverBudget };

/** Bytes come back from a worker as a plain Uint8Array: the same memory as a Buffer. */
export const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

declare module './context.js' {
  interface Deps {
    /** The worker-thread pool for CPU-heavy work (src/cpu/pool.ts). */
    cpu: CpuPool;
  }
}
