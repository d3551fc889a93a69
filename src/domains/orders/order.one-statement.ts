import type { EntityManager } from '@mikro-orm/postgresql';
import { Order } from './order.entity.js';
import type { OrderCreateInput, OrderItemInput, OrderType } from './order.types.js';
import type { Ctx } from '../../core/context.js';
import { inTransaction, isRetryable } from '../../core/tx.js';
import { isInbound, writeWithEvent } from '../../events/outbox.js';
import { insertSelect } from '../../db/insert.js';
import { NEW_ORDER_DEFAULTS, forgetDefaults, forgetProducts, namedProductIds, newOrder, rememberedDefaults, rememberedProducts } from './order.new.js';
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
 * - `guessed`: it names a row whose values the order copies (a product's name and price): the
 *   values the last order naming it read are used, and the statement share-locks the row and
 *   writes nothing unless they still hold, as it does the store's defaults;
 * - `absent`: it needs a lookup or a write elsewhere (a promo's use, a landing page, a shipping
 *   method's price): only an input without it is taken.
 * A field added to the input must be classified here: the compiler checks these lists are
 * exhaustive, and test/orders-one-statement.test.ts checks them against the GraphQL input types.
 */
type FieldRule = 'written' | 'guessed' | 'absent';

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
  productId: 'guessed',
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

const oneStatementCtes = new Map<boolean, string>();

/**
 * The products the order names, share-locked as the general path locks them, only where their
 * name and price are the guessed ones (bindings: the guesses as JSON, storeId). Evaluated from
 * `ok`'s condition, after `d` has locked the status: the general path's lock order.
 */
const GUESSED_PRODUCTS = `p as (select pr.id from products pr
                 join jsonb_to_recordset(?::jsonb) as g(id text, name text, price bigint) on g.id = pr.id
                where pr.store_id = ? and pr.name = g.name and pr.price = g.price
                  for share of pr)`;

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
  const ids = namedProductIds(input.items ?? []);
  const products = ids.length ? rememberedProducts(storeId, ids) : undefined;
  if (ids.length && !products) return null;
  const { order, token } = await newOrder(ctx, storeId, d, input, products ?? []);
  const insert = insertSelect(ctx.em as EntityManager, Order, order);
  // The same text every time (the statement's cache key): built once per shape.
  const named = !!products;
  let ctes = oneStatementCtes.get(named);
  if (!ctes) {
    ctes = `d as (${NEW_ORDER_DEFAULTS}),
               ${named ? `${GUESSED_PRODUCTS},` : ''}
               ok as (select 1 from d where currency = ? and status_id = ? and slug = ?${named ? ' and (select count(*) from p) = ?' : ''}),
               o as (insert into orders (${insert.columns}) select ${insert.values} from ok returning id)`;
    oneStatementCtes.set(named, ctes);
  }
  const view = orderView(order);
  let committed;
  try {
    committed = await writeWithEvent(
      ctx,
      {
        ctes,
        params: [storeId, ...(products ? [JSON.stringify(products), storeId] : []), d.currency, d.statusId, d.status, ...(products ? [products.length] : []), ...insert.params],
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
    // Which guess failed is not known: the general path reads (and remembers) them all again.
    forgetDefaults(storeId);
    forgetProducts(ids);
    return null;
  }
  return { ...view, paymentToken: token.token };
}
