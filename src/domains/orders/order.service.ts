import { Order, OrderStatus, type OrderItem } from './order.entity.js';
import type { OrderCreateInput, OrderItemInput, OrderType, OrderUpdateInput } from './order.types.js';
import { Product } from '../products/product.entity.js';
import { READ_STORE, requireStoreAccess, type StoreAccessRule } from '../stores/access.js';
import { invalid, notFound } from '../../server/errors.js';
import type { Ctx } from '../../server/context.js';
import { transaction, type TxCtx } from '../../db/tx.js';
import { recordEvent } from '../../events/outbox.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { initialStatus } from './statuses.js';

export const WRITE_ORDERS: StoreAccessRule = { role: 'editor', scope: 'store.orders' };

/** Money is kept to the cent. */
const cents = (n: number) => Math.round(n * 100) / 100;

/** The order as REST, GraphQL and event payloads show it. */
export function orderView(o: Order): OrderType {
  return {
    id: o.id,
    storeId: o.storeId,
    customerName: o.customerName,
    customerPhone: o.customerPhone,
    items: o.items.map((i) => ({ productId: i.productId, name: i.name, quantity: i.quantity, price: i.price })),
    total: o.total,
    status: o.status,
    statusId: o.statusId,
    rejectReason: o.rejectReason,
    metadata: o.metadata,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Items name products of the store or carry their own name and price; one query for all products. */
async function resolveItems(ctx: Ctx, storeId: string, items: OrderItemInput[], path: string): Promise<OrderItem[]> {
  const ids = [...new Set(items.map((i) => i.productId).filter((id): id is string => !!id))];
  const products = ids.length ? await ctx.em.find(Product, { storeId, id: { $in: ids } }) : [];
  const byId = new Map(products.map((p) => [p.id, p]));
  return items.map((item, i) => {
    const product = item.productId ? byId.get(item.productId) : undefined;
    if (item.productId && !product) throw invalid(`${path}.${i}.productId`, 'no such product in this store');
    const name = item.name ?? product?.name;
    const price = item.price ?? product?.price;
    if (!name) throw invalid(`${path}.${i}.name`, 'is required without a productId');
    if (price === undefined || price === null) throw invalid(`${path}.${i}.price`, 'is required without a productId');
    return { productId: item.productId ?? null, name, quantity: item.quantity, price };
  });
}

const totalOf = (items: OrderItem[]) => cents(items.reduce((sum, i) => sum + i.quantity * i.price, 0));

export async function createOrder(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType> {
  await requireStoreAccess(ctx, storeId, WRITE_ORDERS);
  return transaction(ctx, async (tx) => {
    const items = await resolveItems(tx, storeId, input.items, 'items');
    const status = await initialStatus(tx, storeId);
    const order = tx.em.create(Order, {
      storeId,
      customerName: input.customerName.trim(),
      customerPhone: input.customerPhone ?? null,
      items,
      total: totalOf(items),
      statusId: status.id,
      status: status.slug,
      metadata: input.metadata ?? {},
    });
    await tx.em.flush();
    const view = orderView(order);
    await recordEvent(tx, { storeId, event: 'orderCreated', record: view });
    return view;
  });
}

export interface OrderFilter {
  limit?: number | null;
  cursor?: string | null;
  status?: string | null;
  q?: string | null;
  createdAfter?: string | null;
  createdBefore?: string | null;
}

function parseInstant(value: string, path: string): Date {
  const d = new Date(value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(d.getTime())) throw invalid(path, 'must be an ISO 8601 date-time');
  return d;
}

export async function listOrders(ctx: Ctx, storeId: string, f: OrderFilter) {
  await requireStoreAccess(ctx, storeId, READ_STORE);
  const limit = pageLimit(f.limit);
  const where: Record<string, unknown> = { storeId };
  if (f.cursor) where.id = { $lt: f.cursor };
  if (f.status) where.status = f.status;
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.$or = [{ customerName: { $ilike: like } }, { customerPhone: { $ilike: like } }];
  }
  const created: Record<string, Date> = {};
  if (f.createdAfter) created.$gte = parseInstant(f.createdAfter, 'createdAfter');
  if (f.createdBefore) created.$lt = parseInstant(f.createdBefore, 'createdBefore');
  if (Object.keys(created).length) where.createdAt = created;
  const rows = await ctx.em.find(Order, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(orderView), nextCursor: p.nextCursor };
}

export async function findOrder(ctx: Ctx, storeId: string, id: string): Promise<Order> {
  const order = await ctx.em.findOne(Order, { id, storeId });
  if (!order) throw notFound('order');
  return order;
}

export async function getOrder(ctx: Ctx, storeId: string, id: string): Promise<OrderType> {
  await requireStoreAccess(ctx, storeId, READ_STORE);
  return orderView(await findOrder(ctx, storeId, id));
}

/**
 * Applies a change to an order and emits orderUpdated with the previous state,
 * in the caller's transaction; unchanged orders emit nothing.
 */
export async function changeOrder(tx: TxCtx, order: Order, apply: (o: Order) => void | Promise<void>): Promise<{ view: OrderType; changed: boolean }> {
  const before = orderView(order);
  await apply(order);
  const after = orderView(order);
  if (JSON.stringify({ ...after, updatedAt: null }) === JSON.stringify({ ...before, updatedAt: null })) return { view: before, changed: false };
  order.updatedAt = new Date();
  await tx.em.flush();
  const view = orderView(order);
  await recordEvent(tx, { storeId: order.storeId, event: 'orderUpdated', record: view, previous: before });
  return { view, changed: true };
}

export function setStatus(order: Order, status: OrderStatus): void {
  order.statusId = status.id;
  order.status = status.slug;
}

export async function updateOrder(ctx: Ctx, storeId: string, id: string, input: OrderUpdateInput): Promise<OrderType> {
  await requireStoreAccess(ctx, storeId, WRITE_ORDERS);
  return transaction(ctx, async (tx) => {
    const order = await findOrder(tx, storeId, id);
    const items = input.items ? await resolveItems(tx, storeId, input.items, 'items') : null;
    let status: OrderStatus | null = null;
    if (input.status != null) {
      status = await tx.em.findOne(OrderStatus, { storeId, slug: input.status });
      if (!status) throw invalid('status', 'is not a status of this store');
    }
    const { view } = await changeOrder(tx, order, (o) => {
      if (input.customerName != null) o.customerName = input.customerName.trim();
      if (input.customerPhone !== undefined) o.customerPhone = input.customerPhone || null;
      if (items) {
        o.items = items;
        o.total = totalOf(items);
      }
      if (status) setStatus(o, status);
      if (input.metadata != null) o.metadata = input.metadata;
    });
    return view;
  });
}

export async function deleteOrder(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await requireStoreAccess(ctx, storeId, WRITE_ORDERS);
  await transaction(ctx, async (tx) => {
    const order = await findOrder(tx, storeId, id);
    const view = orderView(order);
    tx.em.remove(order);
    await tx.em.flush();
    await recordEvent(tx, { storeId, event: 'orderDeleted', record: view });
  });
}
