import { LockMode } from '@mikro-orm/core';
import { OrderStatus } from './order.entity.js';
import type { Ctx } from '../../core/context.js';
import { graphqlEnum } from '../../core/enums.js';
import { notFound } from '../../core/errors.js';

export const STATUS_KINDS = ['new', 'confirmed', 'rejected', 'fulfilled', 'cancelled', 'returned', 'other'] as const;
export const OrderStatusKind = graphqlEnum('OrderStatusKind', STATUS_KINDS, 'What a status means to the order flow; a store may have several statuses of one kind.');

/** An order holds its items (stock, for the inventory module) while the kind of its status is one of these (CONTRACT-2 §9). */
export const HOLDING_KINDS: ReadonlySet<string> = new Set(['confirmed', 'other', 'fulfilled']);
export const holdsStock = (kind: string | null | undefined): boolean => kind != null && HOLDING_KINDS.has(kind);

/** Kinds whose first reach sets `confirmedAt`. */
export const CONFIRMED_KINDS: ReadonlySet<string> = new Set(['confirmed', 'fulfilled']);

/** Kinds an order cannot be confirmed from, whichever route tries. */
const FINAL_KINDS: ReadonlySet<string> = new Set(['rejected', 'cancelled']);

export function moveAllowed(fromKind: string | undefined, to: { kind: string }): boolean {
  return !(to.kind === 'confirmed' && fromKind !== undefined && FINAL_KINDS.has(fromKind));
}

/** Every store starts with this list, in this order. */
export const DEFAULT_STATUSES = [
  { name: 'Pending', slug: 'pending', kind: 'new', color: '#f59e0b' },
  { name: 'Confirmed', slug: 'confirmed', kind: 'confirmed', color: '#3b82f6' },
  { name: 'Processing', slug: 'processing', kind: 'other', color: '#8b5cf6' },
  { name: 'Shipped', slug: 'shipped', kind: 'other', color: '#06b6d4' },
  { name: 'Delivered', slug: 'delivered', kind: 'fulfilled', color: '#22c55e' },
  { name: 'Returned', slug: 'returned', kind: 'returned', color: '#f97316' },
  { name: 'Cancelled', slug: 'cancelled', kind: 'cancelled', color: '#6b7280' },
  { name: 'Rejected', slug: 'rejected', kind: 'rejected', color: '#ef4444' },
] as const;

export function createDefaultStatuses(ctx: Ctx, storeId: string): OrderStatus[] {
  return DEFAULT_STATUSES.map((s, position) => ctx.em.create(OrderStatus, { storeId, ...s, position }));
}

/**
 * The first status of kind `new` by position, share-locked so a concurrent rename or delete of it
 * (which takes the list FOR UPDATE) waits for the writing transaction to commit.
 */
export async function initialStatus(ctx: Ctx, storeId: string): Promise<OrderStatus> {
  const status = await ctx.em.findOne(OrderStatus, { storeId, kind: 'new' }, { orderBy: { position: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_READ });
  // A store keeps a status of kind new (status.service): none means the store is being deleted.
  if (!status) throw notFound('store');
  return status;
}
