import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderStatus } from './order.entity.js';
import type { StatusCounts, StatusCreateInput, StatusReorderInput, StatusType, StatusUpdateInput } from './status.types.js';
import { DEFAULT_STATUSES, moveAllowed } from './statuses.js';
import { moveStatusOrders, statusKindMoves } from './order.service.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { slugify } from '../../lib/slug.js';

/** The status list is not paginated, so it is bounded. */
export const MAX_STATUSES = 100;
const DEFAULT_COLOR = '#6b7280';

export function statusView(s: OrderStatus): StatusType {
  return { id: s.id, name: s.name, slug: s.slug, color: s.color, position: s.position, kind: s.kind };
}

const listView = (statuses: OrderStatus[]): StatusType[] =>
  [...statuses].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1)).map(statusView);

/**
 * Every write to a store's status list takes the list first, so positions, slugs and the
 * "one status of kind new" rule hold under concurrency. Row locks alone miss rows a concurrent
 * create inserts, so the store row (the first lock of every store write, see lockStore)
 * serializes the writers and the list is read after it.
 */
async function lockStatuses(tx: TxCtx, storeId: string): Promise<OrderStatus[]> {
  await lockStore(tx, storeId);
  return tx.em.find(OrderStatus, { storeId }, { orderBy: { position: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The unique index is deferred to commit; a slug taken by a concurrent writer surfaces there. */
const uniqueSlug = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The slug is taken in this store');
    throw err;
  });

function assertSlugFree(all: OrderStatus[], slug: string, exceptId?: string) {
  if (all.some((s) => s.slug === slug && s.id !== exceptId)) throw conflict(`The slug "${slug}" is taken in this store`);
}

function findIn(all: OrderStatus[], id: string): OrderStatus {
  const status = all.find((s) => s.id === id);
  if (!status) throw notFound('status');
  return status;
}

const keepsNew = (all: OrderStatus[], without: OrderStatus) => all.some((s) => s !== without && s.kind === 'new');

export async function listStatuses(ctx: Ctx, storeId: string): Promise<StatusType[]> {
  return listView(await ctx.em.find(OrderStatus, { storeId }));
}

/** Appends to the list. */
export async function createStatus(ctx: Ctx, storeId: string, input: StatusCreateInput): Promise<StatusType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      const all = await lockStatuses(tx, storeId);
      if (all.length >= MAX_STATUSES) throw new AppError('LIMIT_EXCEEDED', `A store has at most ${MAX_STATUSES} statuses`);
      const slug = input.slug ?? slugify(input.name);
      assertSlugFree(all, slug);
      const status = tx.em.create(OrderStatus, {
        storeId,
        name: input.name.trim(),
        slug,
        color: input.color ?? DEFAULT_COLOR,
        kind: input.kind ?? 'other',
        position: all.reduce((max, s) => Math.max(max, s.position + 1), 0),
      });
      await tx.em.flush();
      return statusView(status);
    }),
  );
}

/** A new slug is carried to the status's orders in the same transaction (each emits orderUpdated). */
export async function updateStatus(ctx: Ctx, storeId: string, id: string, input: StatusUpdateInput): Promise<StatusType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      const all = await lockStatuses(tx, storeId);
      const status = findIn(all, id);
      if (input.kind != null && input.kind !== 'new' && status.kind === 'new' && !keepsNew(all, status)) {
        throw conflict('A store keeps at least one status of kind new');
      }
      const renamed = input.slug != null && input.slug !== status.slug;
      if (renamed) assertSlugFree(all, input.slug!, id);
      const kindBefore = status.kind;
      if (input.name != null) status.name = input.name.trim();
      if (input.color != null) status.color = input.color;
      if (input.kind != null) status.kind = input.kind;
      if (renamed) status.slug = input.slug!;
      await tx.em.flush();
      // Its orders change kind with it.
      await statusKindMoves(tx, storeId, status.id, kindBefore, status.kind);
      if (renamed) await moveStatusOrders(tx, storeId, status, status);
      return statusView(status);
    }),
  );
}

/**
 * A status in use is deleted only with `moveTo`, which moves its orders first, in the same
 * transaction. Positions close up behind it.
 */
export async function deleteStatus(ctx: Ctx, storeId: string, id: string, moveTo: string | null | undefined): Promise<void> {
  await transaction(ctx, async (tx) => {
    const all = await lockStatuses(tx, storeId);
    const status = findIn(all, id);
    if (status.kind === 'new' && !keepsNew(all, status)) throw conflict('A store keeps at least one status of kind new');
    if (moveTo != null) {
      const target = all.find((s) => s.id === moveTo && s.id !== id);
      if (!target) throw invalid('moveTo', 'must be another status of this store');
      if (!moveAllowed(status.kind, target)) throw conflict(`Orders of a ${status.kind} status cannot be moved to a confirmed one`);
      await moveStatusOrders(tx, storeId, status, target);
    } else {
      const inUse = await tx.em.count(Order, { storeId, statusId: id });
      if (inUse) throw conflict(`${inUse} orders have this status; pass moveTo to move them first`);
    }
    tx.em.remove(status);
    all.filter((s) => s !== status).forEach((s, position) => (s.position = position));
    await tx.em.flush();
  });
}

export async function reorderStatuses(ctx: Ctx, storeId: string, input: StatusReorderInput): Promise<StatusType[]> {
  return transaction(ctx, async (tx) => {
    const all = await lockStatuses(tx, storeId);
    const byId = new Map(all.map((s) => [s.id, s]));
    const ids = input.ids;
    if (ids.length !== all.length || new Set(ids).size !== ids.length || ids.some((i) => !byId.has(i))) {
      throw invalid('ids', 'must list every status id of the store exactly once');
    }
    ids.forEach((i, position) => (byId.get(i)!.position = position));
    await tx.em.flush();
    return listView(all);
  });
}

/**
 * Back to the default list. Statuses whose slug is a default one are kept (same id, so their
 * orders stay) and get the default name, color, kind and position; the others are removed
 * and their orders move to the first default status of the same kind.
 */
export async function resetStatuses(ctx: Ctx, storeId: string): Promise<StatusType[]> {
  return transaction(ctx, async (tx) => {
    const all = await lockStatuses(tx, storeId);
    const bySlug = new Map(all.map((s) => [s.slug, s]));
    const kindsBefore = new Map(all.map((s) => [s.id, s.kind]));
    const kept = DEFAULT_STATUSES.map((d, position) => {
      const existing = bySlug.get(d.slug);
      if (!existing) return tx.em.create(OrderStatus, { storeId, ...d, position });
      Object.assign(existing, { name: d.name, color: d.color, kind: d.kind, position });
      return existing;
    });
    await tx.em.flush();
    for (const s of kept) if (kindsBefore.has(s.id)) await statusKindMoves(tx, storeId, s.id, kindsBefore.get(s.id), s.kind);
    for (const s of all) {
      if (kept.includes(s)) continue;
      // Every kind has a default status, so there is always a target.
      await moveStatusOrders(tx, storeId, s, kept.find((k) => k.kind === s.kind)!);
      tx.em.remove(s);
    }
    await tx.em.flush();
    return listView(kept);
  });
}

/**
 * Orders per status in one aggregate statement: one snapshot, so the counts and their total
 * agree with each other even while orders are being moved.
 */
export async function countOrders(ctx: Ctx, storeId: string): Promise<StatusCounts> {
  const rows: Array<{ id: string; slug: string; name: string; count: number | string }> = await (ctx.em as EntityManager).execute(
    `select s.id, s.slug, s.name, count(o.id) as count
       from order_statuses s
       left join orders o on o.store_id = s.store_id and o.status_id = s.id
      where s.store_id = ?
      group by s.id, s.slug, s.name, s.position
      order by s.position, s.id`,
    [storeId],
  );
  const data = rows.map((r) => ({ statusId: r.id, slug: r.slug, name: r.name, count: Number(r.count) }));
  return { data, total: data.reduce((sum, r) => sum + r.count, 0) };
}
