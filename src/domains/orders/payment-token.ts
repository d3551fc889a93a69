import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytesPooled } from '../../lib/random.js';
import { sha256, type PaymentGrant } from '../../core/context.js';

/** Order payment tokens carry this prefix, so they are told apart from auth tokens without a second lookup. */
export const PAYMENT_TOKEN_PREFIX = 'opt_';

/** A new order payment token: opaque, 32 random bytes; only its SHA-256 is stored. */
export function newPaymentToken(): { token: string; hash: string } {
  const token = `${PAYMENT_TOKEN_PREFIX}${randomBytesPooled(32).toString('base64url')}`;
  return { token, hash: sha256(token) };
}

/** What a presented payment token lets its bearer do (CONTRACT-2 §9): null when no order has it. */
export async function paymentGrantOf(em: EntityManager, token: string): Promise<PaymentGrant | null> {
  const [order] = await em.execute<Array<{ id: string; store_id: string }>>('select id, store_id from orders where payment_token_hash = ?', [sha256(token)]);
  return order ? { orderId: order.id, storeId: order.store_id } : null;
}
