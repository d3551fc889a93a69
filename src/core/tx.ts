import type { Ctx } from './context.js';

/** A context inside a transaction: work queued in `afterCommit` runs only once it committed. */
export interface TxCtx extends Ctx {
  afterCommit: Array<() => void>;
}

export function inTransaction(ctx: Ctx): ctx is TxCtx {
  return Array.isArray((ctx as TxCtx).afterCommit);
}

/** One mutation, one transaction; nothing leaves (events, wake-ups) before commit. */
export async function transaction<T>(ctx: Ctx, fn: (tx: TxCtx) => Promise<T>): Promise<T> {
  if (inTransaction(ctx)) return fn(ctx);
  const afterCommit: Array<() => void> = [];
  const result = await ctx.em.transactional((em) => fn({ ...ctx, em: em as Ctx['em'], afterCommit }));
  for (const run of afterCommit) {
    try {
      run();
    } catch (err) {
      ctx.deps.log.error({ err }, 'after-commit hook failed');
    }
  }
  return result;
}
