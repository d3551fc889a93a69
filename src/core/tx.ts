import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { primaryEm, type Ctx } from './context.js';
import { AppError, conflict, notFound, vanishedReference } from './errors.js';

/** A context inside a transaction: work queued in `afterCommit` runs only once it committed. */
export interface TxCtx extends Ctx {
  afterCommit: Array<() => void>;
}

export function inTransaction(ctx: Ctx): ctx is TxCtx {
  return Array.isArray((ctx as TxCtx).afterCommit);
}

/** PostgreSQL's serialization failure (40001) and deadlock (40P01): the transaction may simply run again. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof DeadlockException) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/** A transaction that lost a race is run once more; a second loss is the caller's to retry (409). */
const ATTEMPTS = 2;

/**
 * One mutation, one transaction; nothing leaves (events, wake-ups) before commit. Locks are taken
 * in one order everywhere (the store row, then its records, see `lockStore`); a deadlock or
 * serialization failure that still happens is retried once and then answers 409, never 500. A
 * foreign-key check that fails at commit (the store or a named record deleted meanwhile) is a
 * 404 for the store, else a 409.
 */
export async function transaction<T>(ctx: Ctx, fn: (tx: TxCtx) => Promise<T>): Promise<T> {
  if (inTransaction(ctx)) return fn(ctx);
  const primary = primaryEm(ctx);
  for (let attempt = 1; ; attempt++) {
    const afterCommit: Array<() => void> = [];
    let result: T;
    try {
      // Always the primary's, even inside a query whose reads go to a replica (a standby refuses writes).
      result = await primary.transactional((em) => fn({ ...ctx, em: em as Ctx['em'], primary: undefined, afterCommit }));
    } catch (err) {
      if (!isRetryable(err)) throw vanishedReference(err) ?? err;
      if (attempt >= ATTEMPTS) throw conflict('A concurrent change to the same data got in the way; try again');
      // Entities read by the failed attempt may be stale: the next one reads afresh.
      primary.clear();
      continue;
    }
    for (const run of afterCommit) {
      try {
        run();
      } catch (err) {
        ctx.deps.log.error({ err }, 'after-commit hook failed');
      }
    }
    return result;
  }
}

/**
 * The first lock of every write to a store's data: the store row (FOR NO KEY UPDATE, which
 * inserts' foreign-key checks do not wait for). Writers then lock their records, and the event
 * outbox updates this row last, so the order is the same everywhere: store, then records. A
 * deleted store (or one deleted while waiting) is a 404.
 */
export async function lockStore(tx: TxCtx, storeId: string): Promise<void> {
  const rows = await (tx.em as EntityManager).execute('select id from stores where id = ? for no key update', [storeId]);
  if (!rows.length) throw notFound('store');
}

/**
 * For writes that need the store to stay but not to be serialized with other writers: the store
 * row FOR KEY SHARE, the lock a store delete waits for (and the one the deferred foreign-key checks
 * take at commit anyway). Taken first, before anything the write checks against the store's
 * records, so a delete either waits for the write or happened before it (404), never in between.
 */
export async function keepStore(tx: TxCtx, storeId: string): Promise<void> {
  const rows = await (tx.em as EntityManager).execute('select id from stores where id = ? for key share', [storeId]);
  if (!rows.length) throw notFound('store');
}

/**
 * Runs `fn` in a savepoint of the transaction: when it throws, only its own writes are undone (its
 * after-commit work is dropped with them) and the transaction may go on.
 */
export async function savepoint<T>(tx: TxCtx, fn: (tx: TxCtx) => Promise<T>): Promise<T> {
  const afterCommit: Array<() => void> = [];
  const result = await tx.em.transactional((em) => fn({ ...tx, em: em as Ctx['em'], afterCommit }));
  tx.afterCommit.push(...afterCommit);
  return result;
}

/** PostgreSQL's data exceptions (22xxx) and the not-null and check violations: the values are at fault. */
const DATA_REFUSED = (code: string) => code.startsWith('22') || code === '23502' || code === '23514';

/**
 * Applies one verified provider event in a savepoint. A refusal the event itself causes (a 4xx
 * other than 429, a value PostgreSQL cannot take) would fail again on every redelivery: its writes
 * are undone and the reason comes back, for the caller to record while the rest of the batch goes
 * on. Anything else (a lost race, a lost connection) is thrown, and the provider's retry is right.
 */
export async function applyOrRefuse(tx: TxCtx, apply: (tx: TxCtx) => Promise<unknown>): Promise<string | null> {
  try {
    await savepoint(tx, apply);
    return null;
  } catch (err) {
    if (err instanceof AppError && err.status >= 400 && err.status < 500 && err.code !== 'RATE_LIMITED') return `${err.code}: ${err.message}`.slice(0, 500);
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && !isRetryable(err) && DATA_REFUSED(code)) return `The database refused a value (SQLSTATE ${code})`;
    throw err;
  }
}
