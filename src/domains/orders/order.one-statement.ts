import type { EntityManager } from '@mikro-orm/postgresql';
import { Order } from './order.entity.js';
import type { OrderCreateInput, OrderItemInput, OrderType } from './order.types.js';
import type { Ctx } from '../../core/context.js';
import { inTransaction, isRetryable } from '../../core/tx.js';
import { isInbound, writeWithEvent } from '../../events/outbox.js';
import { insertSelect } from '../../db/insert.js';
import { NEW_ORDER_DEFAULTS, forgetDefaults, newOrder, rememberedDefaults } from './order.new.js';
import { orderView } from './order.view.js';

/**
 * The one-statement order create (docs/performance.md): the common order written with its event,
 * its delivery jobs and the NOTIFY in one statement, outside any transaction. It is measured (it
 * is why order writes doubled), so it stays; what keeps it correct is that it takes only inputs it
 * writes exactly as the general path (order.service.ts `createOrder`) would.
 *
 * How each input field bears on it:
 * - `written`: `newOrder` turns it into columns of the insert without another domain's lookup or
 *   write, the same on both paths;
 * - `absent`: it needs a lookup or a write elsewhere (a product's price and share lock, a promo's
 *   use, a landing page, a shipping method's price): only an input without it is taken.
 * A field added to the input must be classified here: the compiler checks these lists are
 * exhaustive, and test/orders-one-statement.test.ts checks them against the GraphQL input types.
 */
type FieldRule = 'written' | 'absent';

export const CREATE_FIELDS = {
  customerName: 'written',
  customerPhone: 'written',
  // Each item by ITEM_FIELDS.
  items: 'written',
  shippingAddress: 'written',
  shippingMethodId: 'absent',
  shippingType: 'written',
  promoCode: 'absent',
  landingPageId: 'absent',
  metadata: 'written',
} as const satisfies Record<keyof OrderCreateInput, FieldRule>;

export const ITEM_FIELDS = {
  productId: 'absent',
  name: 'written',
  quantity: 'written',
  price: 'written',
} as const satisfies Record<keyof OrderItemInput, FieldRule>;

const absentOf = <T extends Record<string, FieldRule>>(fields: T) => (Object.keys(fields) as Array<keyof T>).filter((f) => fields[f] === 'absent');
const ABSENT_FIELDS = absentOf(CREATE_FIELDS);
const ABSENT_ITEM_FIELDS = absentOf(ITEM_FIELDS);
const isAbsent = (v: unknown) => v === undefined || v === null;

/** Whether the input is one the one-statement create writes exactly as the general path would. */
export function oneStatementEligible(input: OrderCreateInput): boolean {
  for (const f of ABSENT_FIELDS) if (!isAbsent(input[f])) return false;
  for (const item of input.items ?? []) for (const f of ABSENT_ITEM_FIELDS) if (!isAbsent(item[f])) return false;
  return true;
}

let oneStatementCtes: string | undefined;

/**
 * An eligible order, in a store no module follows orders of, as one statement: the store's
 * defaults are the ones its last order read, checked in the statement, which inserts the order
 * and records its event only if they still hold (status locked as in the general path). Null when
 * it did not apply or wrote nothing: the caller then takes the general path.
 */
export async function createOrderInOneStatement(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType | null> {
  const d = rememberedDefaults(storeId);
  if (!d || inTransaction(ctx) || !oneStatementEligible(input)) return null;
  if (ctx.deps.modules.some((m) => m.onOrderWritten && (m.followsOrders?.(ctx.deps, storeId) ?? true))) return null;
  const { order, token } = await newOrder(ctx, storeId, d, input);
  const insert = insertSelect(ctx.em as EntityManager, Order, order);
  // The same text every time (the statement's cache key): built once.
  oneStatementCtes ??= `d as (${NEW_ORDER_DEFAULTS}),
               ok as (select 1 from d where currency = ? and status_id = ? and slug = ?),
               o as (insert into orders (${insert.columns}) select ${insert.values} from ok returning id)`;
  const view = orderView(order);
  let committed;
  try {
    committed = await writeWithEvent(
      ctx,
      {
        ctes: oneStatementCtes,
        params: [storeId, d.currency, d.statusId, d.status, ...insert.params],
        written: 'o',
      },
      { storeId, event: 'orderCreated', record: view, inbound: isInbound(input) },
    );
  } catch (err) {
    // A deadlock or serialization loss: the general path retries it in a transaction.
    if (isRetryable(err)) return null;
    throw err;
  }
  if (!committed) {
    forgetDefaults(storeId);
    return null;
  }
  return { ...view, paymentToken: token.token };
}
