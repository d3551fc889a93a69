import type { Ctx } from '../../core/context.js';
import { conflict } from '../../core/errors.js';
import { IDEMPOTENCY_TTL_MS } from '../../core/idempotency.js';
import type { TxCtx } from '../../core/tx.js';

/**
 * `Idempotency-Key` on checkout and refund (CONTRACT-2 §15), scoped to order + route + key.
 * The key is taken under the order's row lock, so two requests with one key never both run;
 * only successful answers are kept (a failed request may be retried with the same key). The key
 * check, request digest and 24 h lifetime are core/idempotency.ts's, shared with every other create.
 */
export type IdempotentRoute = 'checkout' | 'refund';

/**
 * Inside the transaction holding the order lock: the stored answer of an earlier request with
 * this key, or null after reserving the key for this request. Another body → 409; the same key
 * still running → 409.
 */
export async function reserveKey<T>(tx: TxCtx, orderId: string, route: IdempotentRoute, key: string, hash: string): Promise<T | null> {
  const [row] = await tx.em.execute<Array<{ request_hash: string; response: T | null; created_at: Date | string }>>(
    'select request_hash, response, created_at from payment_idempotency where order_id = ? and route = ? and key = ?',
    [orderId, route, key],
  );
  const now = Date.now();
  if (row && now - new Date(row.created_at).getTime() < IDEMPOTENCY_TTL_MS) {
    if (row.request_hash !== hash) throw conflict('This Idempotency-Key was already used with another request body');
    if (row.response === null) throw conflict('A request with this Idempotency-Key is still in progress; retry shortly');
    return row.response;
  }
  await tx.em.execute(
    `insert into payment_idempotency (order_id, route, key, request_hash, response, created_at) values (?, ?, ?, ?, null, ?)
     on conflict (order_id, route, key) do update set request_hash = excluded.request_hash, response = null, created_at = excluded.created_at`,
    [orderId, route, key, hash, new Date(now)],
  );
  return null;
}

export async function storeAnswer(ctx: Ctx, orderId: string, route: IdempotentRoute, key: string, response: unknown): Promise<void> {
  await ctx.em.execute('update payment_idempotency set response = ?::jsonb where order_id = ? and route = ? and key = ?', [JSON.stringify(response), orderId, route, key]);
}

/** The request failed: the key is free again. */
export async function releaseKey(ctx: Ctx, orderId: string, route: IdempotentRoute, key: string): Promise<void> {
  await ctx.em.execute('delete from payment_idempotency where order_id = ? and route = ? and key = ? and response is null', [orderId, route, key]);
}

export async function pruneIdempotency(ctx: Ctx): Promise<number> {
  const rows = await ctx.em.execute<Array<{ n: number }>>(
    'with d as (delete from payment_idempotency where created_at < ? returning 1) select count(*)::int as n from d',
    [new Date(Date.now() - IDEMPOTENCY_TTL_MS)],
  );
  return rows[0]?.n ?? 0;
}
