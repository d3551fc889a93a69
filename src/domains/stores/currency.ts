import type { Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';

declare module '../../core/context.js' {
  interface Ctx {
    /** Store currencies already read in this request. */
    storeCurrencies?: Map<string, string>;
  }
}

/** The store's currency (ISO 4217), read once per request. */
export async function storeCurrency(ctx: Ctx, storeId: string): Promise<string> {
  ctx.storeCurrencies ??= new Map();
  let c = ctx.storeCurrencies.get(storeId);
  if (!c) {
    const [row] = await ctx.em.execute<Array<{ currency: string }>>('select currency from stores where id = ?', [storeId]);
    if (!row) throw notFound('store');
    c = row.currency;
    ctx.storeCurrencies.set(storeId, c);
  }
  return c;
}
