import type { EntityManager } from '@mikro-orm/postgresql';
import { primaryEm, type Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { checkIdempotencyKey, keepIdempotentAnswer, releaseIdempotencyKey, requestHash, reserveIdempotencyKey } from '../../core/idempotency.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { e164Phone } from '../../lib/phone.js';
import {
  cartItemsKey,
  customerLock,
  customerRecordOf,
  customerRecordRead,
  insertPricedOrder,
  insertPricedOrderAlone,
  newOrderId,
  orderedRecently,
  type CustomerRecord,
  type OrderGuard,
  type OrderRisk,
  type PlacedOrder,
  type PricedOrder,
} from '../orders/order.customer.js';
import { quotePromo, redeemPromo, refusalReason } from '../promos/promo.service.js';
import { DEFAULT_PHONE_REGION, LIMIT_WINDOWS } from '../stores/store.storefront.js';
import { admit, closedStore, OPEN_STORE, openStoreOf, presentedBuyer, storefrontRead, type OpenStore, type OpenStoreRow } from './storefront.access.js';
import { blocklistHits, blocklistHitsAny } from './storefront-blocklist.service.js';
import { checkoutSlotsCtes, DUPLICATE_WINDOW_MS, judgeSlots, takeCheckoutSlots, type CheckoutRules } from './storefront-limits.js';
import { cartFits, cartReadColumns, cartView, priceCart, priceRead, shopperPhone, type CartRead, type CouponJudge, type PricedCart, type ProductFacts } from './storefront.pricing.js';
import { FIRST_STATUS_ROW, publicOrderView } from './storefront.orders.js';
import { checkState, readableStore, SHOP_COUNTRY } from './storefront.catalog.js';
import type { CartInput, CartPriceType, PublicOrderType, StorefrontCheckoutType, StorefrontOrderInput } from './storefront.types.js';

/**
 * Pricing a cart and the guest checkout (CONTRACT-3 §17.4, §17.5, §17.7): the one pricing code
 * for both, the merchant's defences (blocklist, limits per address and phone, duplicates, risk)
 * checked before anything is written, and nothing written after a refusal.
 */

/** A cart priced now: codes quoted, no use counted. */
export async function priceStorefrontCart(ctx: Ctx, ref: string, input: CartInput): Promise<CartPriceType> {
  const store = await readableStore(ctx, ref);
  const phone = input.customerPhone ? shopperPhone(input.customerPhone, store, 'customerPhone') : null;
  const quote: CouponJudge = (code, lines) => quotePromo(ctx, store.id, code, lines, phone);
  return cartView(await priceCart(ctx, store, { ...input, customerPhone: phone }, quote));
}

/** Every blocked checkout gets this one answer, whatever matched. */
const blocked = () => new AppError('FORBIDDEN', 'This order cannot be placed');

/**
 * The risk of a storefront order, from this store's own records of its phone and address (never
 * another store's): delivered orders lower it; returned, refused and cancelled ones, a burst of
 * orders from the address, a first order and a tie to a blocked phone or address raise it.
 */
export function riskOf(r: CustomerRecord, related: { blockedPhone: boolean; blockedAddress: boolean }): OrderRisk {
  const reasons: OrderRisk['reasons'] = [];
  let score = 0;
  const count = (kind: string) => r.byKind[kind] ?? 0;
  const add = (code: string, detail: string, points: number) => {
    reasons.push({ code, detail });
    score += points;
  };
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const total = Object.values(r.byKind).reduce((a, b) => a + b, 0);
  if (total === 0) add('FIRST_ORDER', 'The first order of this phone in this store', 10);
  if (count('fulfilled')) add('DELIVERED', `${plural(count('fulfilled'), 'earlier order')} of this phone delivered`, -Math.min(45, 15 * count('fulfilled')));
  if (count('returned')) add('RETURNED', `${plural(count('returned'), 'earlier order')} of this phone returned`, Math.min(60, 30 * count('returned')));
  if (count('rejected')) add('REFUSED', `${plural(count('rejected'), 'earlier order')} of this phone refused`, Math.min(40, 20 * count('rejected')));
  if (count('cancelled')) add('CANCELLED', `${plural(count('cancelled'), 'earlier order')} of this phone cancelled`, Math.min(30, 10 * count('cancelled')));
  if (r.addressLastHour) add('ADDRESS_BURST', `${plural(r.addressLastHour, 'other order')} from this address in the last hour`, Math.min(40, 10 * r.addressLastHour));
  if (related.blockedPhone) add('BLOCKLIST_RELATED', 'This address ordered before with a blocked phone', 40);
  if (related.blockedAddress) add('BLOCKLIST_RELATED', 'This phone ordered before from a blocked address', 40);
  return { score: Math.max(0, Math.min(100, score)), reasons };
}

/** A customer's other phones and addresses (the last 20 of each) against the blocklist, at once. */
async function relatedBlocks(em: EntityManager, storeId: string, r: CustomerRecord) {
  const hit = await blocklistHitsAny(em, storeId, r.otherPhones, r.otherAddresses);
  return { blockedPhone: hit.phone, blockedAddress: hit.ip };
}

/** The code redeemed for the order being written: a use counted, the caps taken, in its transaction. */
function redeemer(tx: TxCtx, store: OpenStore, orderId: string, phone: string): CouponJudge {
  return async (code, lines) => {
    const order = { id: orderId, items: lines, customerPhone: phone, shippingAddress: { country: SHOP_COUNTRY } };
    try {
      const r = await redeemPromo(tx, store.id, order, code);
      return { code: r.code, reason: null, subtotal: 0, discount: r.discount, freeShipping: r.freeShipping };
    } catch (err) {
      const reason = refusalReason(err);
      if (!reason) throw err;
      return { code: code.trim().toUpperCase(), reason, subtotal: 0, discount: 0, freeShipping: false };
    }
  };
}

const cartInvalid = (cart: PricedCart) =>
  new AppError('CART_INVALID', `The cart cannot be ordered: ${cart.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, undefined, undefined, { problems: cart.problems });

/**
 * The store as a checkout reads it, with whether its blocklist lists anyone at all: most list
 * nobody, and their checkouts then skip both blocklist statements. The flag is as fresh as the
 * blocklist statement it replaces (read at the request's start, outside the order's transaction).
 */
const CHECKOUT_STORE = `select s.*, exists(select 1 from storefront_blocklist b where b.store_id = s.id) as blocking from (${OPEN_STORE}) s`;

const duplicateOrder = () => new AppError('DUPLICATE_ORDER', 'The same order was placed with this phone in the last 10 minutes');

const checkoutRules = (store: OpenStore): CheckoutRules => ({
  address: { max: store.settings.limits.checkoutsPerAddress, windowMs: LIMIT_WINDOWS.checkoutsPerAddress },
  phone: { max: store.settings.limits.checkoutsPerPhone, windowMs: LIMIT_WINDOWS.checkoutsPerPhone },
});

const NO_BLOCKS = { blockedPhone: false, blockedAddress: false };

/** The order a priced cart becomes. */
function pricedOrder(orderId: string, input: StorefrontOrderInput, phone: string, address: string, cart: PricedCart, risk: OrderRisk): PricedOrder {
  const shipping = input.shipping;
  return {
    id: orderId,
    customerName: input.customerName,
    customerPhone: phone,
    customerEmail: input.customerEmail?.trim() || null,
    items: cart.lines.map((l) => ({ productId: l.productId, name: l.name, quantity: l.quantity, price: l.unitPrice })),
    shippingAddress: { country: SHOP_COUNTRY, address: shipping.address?.trim() || null, communeId: null, communeName: shipping.city.trim(), wilayaCode: shipping.state },
    shippingMethodId: cart.shipping!.methodId,
    shippingType: shipping.type,
    shippingCost: cart.shippingPrice,
    promo: cart.coupon?.valid ? { code: cart.coupon.code, discount: cart.discount } : null,
    note: input.note?.trim() || null,
    metadata: input.metadata ?? {},
    source: 'storefront',
    customerIp: address,
    risk,
  };
}

/** A new order as its customer sees it: its first status, no parcel yet (no read after the write). */
function placedView(placed: PlacedOrder): { order: PublicOrderType; token: string } {
  const status = { name: placed.statusName, kind: 'new' };
  return { order: publicOrderView(placed.entity, status, [{ at: placed.entity.createdAt, ...status }], []), token: placed.token };
}

/** What the shopper asked for, as the pricing reads it. */
const cartRequest = (input: StorefrontOrderInput, phone: string) => ({
  items: input.items,
  shipping: { state: input.shipping.state, type: input.shipping.type, methodId: input.shipping.methodId },
  coupon: input.coupon,
  customerPhone: phone,
});

/**
 * Every storefront order keeps its duplicate key (store, phone, cart) with it, written by the
 * order's statement: a checkout written alone (`aloneGuard`) claims the same row, so the two
 * paths see each other's orders, whatever their snapshots saw.
 */
const keyClaim = (from: string, onlyWhen = '') => `insert into storefront_order_keys as r (store_id, phone, items_key, placed_at) select ?, ?, ?, now() from ${from}
                on conflict (store_id, phone, items_key) do update set placed_at = excluded.placed_at${onlyWhen}`;
const KEEP_KEY = `k as (${keyClaim('o')})`;
const WITH_ORDER_KEPT = `${FIRST_STATUS_ROW.ctes},\n          ${KEEP_KEY}`;

/** The order, written or refused as a whole, in a transaction. */
async function placeOrder(ctx: Ctx, store: OpenStore, blocking: boolean, address: string, phone: string, input: StorefrontOrderInput): Promise<{ order: PublicOrderType; token: string }> {
  return transaction(ctx, async (tx) => {
    // First, so a refused shopper costs one statement each; undone with everything else on a refusal.
    // Then, in the same statement when both slots are granted, one customer's checkouts one at a
    // time: the duplicate check below sees the one before.
    await takeCheckoutSlots(tx.em as EntityManager, store.id, address, phone, checkoutRules(store), customerLock(store.id, phone));
    const orderId = newOrderId();
    // The customer's record (after the lock) is read by the pricing's statement.
    const cart = await priceCart(tx, store, cartRequest(input, phone), redeemer(tx, store, orderId, phone), customerRecordRead(store.id, phone, address, new Date(Date.now() - DUPLICATE_WINDOW_MS)));
    if (cart.problems.length) throw cartInvalid(cart);
    const record = customerRecordOf(cart.alongside);
    if (orderedRecently(record, cart.lines)) throw duplicateOrder();
    const risk = riskOf(record, blocking ? await relatedBlocks(tx.em as EntityManager, store.id, record) : NO_BLOCKS);
    const placed = await insertPricedOrder(tx, store.id, pricedOrder(orderId, input, phone, address, cart, risk), {
      ctes: WITH_ORDER_KEPT,
      params: [...FIRST_STATUS_ROW.params, store.id, phone, cartItemsKey(cart.lines)],
    });
    return placedView(placed);
  });
}

/**
 * What a checkout written alone must hold, in its statement: both slots taken (`g`, as the
 * transaction takes them first); then, only when both are granted, the customer's lock (`l`, as
 * the transaction takes it next) and the cart's duplicate key (`k`: claimed only when no order of
 * the same key is younger than the window, committed or not); the products share-locked where
 * they still read as they were priced (`sp`).
 */
function aloneGuard(store: OpenStore, address: string, phone: string, key: string, facts: Array<Omit<ProductFacts, 'slug'>>): OrderGuard {
  const slots = checkoutSlotsCtes(store.id, address, phone, checkoutRules(store));
  const lock = customerLock(store.id, phone);
  return {
    // The same text every call (its parts are constants): built once, so the statement is found by it.
    ctes: (aloneGuardCtes ??= `${slots.ctes},
          l as materialized (select ${lock.sql} from g where g.granted),
          k as (${keyClaim('l', "\n                where r.placed_at <= excluded.placed_at - ? * interval '1 millisecond'")} returning 1),
          sp as (select pr.id from products pr
                   join jsonb_to_recordset(?::jsonb) as f(id text, name text, price bigint, status text, stock bigint, allow_backorder boolean) on f.id = pr.id
                  where pr.store_id = ? and pr.name = f.name and pr.price = f.price and pr.status = f.status
                    and pr.stock is not distinct from f.stock and pr.allow_backorder = f.allow_backorder
                    for share of pr)`),
    params: [...slots.params, ...lock.params, store.id, phone, key, DUPLICATE_WINDOW_MS, JSON.stringify(facts), store.id],
    holds: 'exists(select 1 from k) and (select count(*) from sp) = ?',
    holdsParams: [facts.length],
    why: `(select jsonb_build_object('slots', g.slots, 'granted', g.granted, 'fresh', exists(select 1 from k)) from g)`,
  };
}

let aloneGuardCtes: string | undefined;

/** No code to judge: a checkout written alone has none. */
const noCode: CouponJudge = () => Promise.reject(new Error('a checkout without a code judges none'));

/**
 * The common checkout (no promo code, in a store whose blocklist lists nobody) without a
 * transaction: the cart priced and the shopper's record read by one statement, then the slots,
 * the customer's lock, the duplicate key, the products' share locks, the order, its first history
 * row, its event and its deliveries by one more, undone whole when any of them does not hold. A
 * refusal that statement names (a limit, a duplicate) is answered as the transaction would; a
 * cart the first finds wanting, or a product or the store's defaults that moved in between, leave
 * the checkout to the transaction, which answers as it always has. Null: take the transaction.
 */
async function placeOrderAlone(
  ctx: Ctx,
  store: OpenStore,
  address: string,
  phone: string,
  input: StorefrontOrderInput,
  read: CartRead | undefined,
): Promise<{ order: PublicOrderType; token: string } | null> {
  const request = cartRequest(input, phone);
  // Too many lines is the transaction's 400, after the limits, as it always was.
  if (input.coupon || !cartFits(store, request)) return null;
  let cart;
  if (read) {
    cart = await priceRead(store, request, read, noCode);
  } else {
    const primary: Ctx = { ...ctx, em: primaryEm(ctx) };
    cart = await priceCart(primary, store, request, noCode, customerRecordRead(store.id, phone, address, new Date(Date.now() - DUPLICATE_WINDOW_MS)));
  }
  if (cart.problems.length) return null;
  const record = customerRecordOf(cart.alongside);
  if (orderedRecently(record, cart.lines)) return null;
  const named = new Set(cart.lines.map((l) => l.productId));
  const facts = cart.facts.filter((f) => named.has(f.id)).map((f) => ({ id: f.id, name: f.name, price: f.price, status: f.status, stock: f.stock, allow_backorder: f.allow_backorder }));
  const result = await insertPricedOrderAlone(
    ctx,
    store.id,
    pricedOrder(newOrderId(), input, phone, address, cart, riskOf(record, NO_BLOCKS)),
    aloneGuard(store, address, phone, cartItemsKey(cart.lines), facts),
    FIRST_STATUS_ROW,
  );
  if (!result) return null;
  if ('placed' in result) return placedView(result.placed);
  const why = result.undone as { slots: Parameters<typeof judgeSlots>[0]; granted: boolean; fresh: boolean };
  if (!why.granted) judgeSlots(why.slots, checkoutRules(store));
  else if (!why.fresh) throw duplicateOrder();
  return null;
}

/**
 * What the common checkout reads with its store, in the same statement: the cart and the shopper's
 * record, for the phone as read in the region most stores keep and the address the request presents
 * (the socket's, or the one a server key names). They are used only when the store's region and
 * the shopper's address turn out to be those; null when they cannot be guessed (a code, another
 * format, an unknown key: the usual path then answers).
 */
async function readAhead(ctx: Ctx, input: StorefrontOrderInput): Promise<{ phone: string; address: string; text: string; params: unknown[] } | null> {
  if (input.coupon) return null;
  const phone = e164Phone(input.customerPhone, DEFAULT_PHONE_REGION);
  const buyer = phone ? await presentedBuyer(ctx) : null;
  if (!phone || !buyer) return null;
  const store = { sql: 'x.id' };
  const record = customerRecordRead(store, phone, buyer.address, new Date(Date.now() - DUPLICATE_WINDOW_MS));
  const columns = cartReadColumns(store, cartRequest(input, phone), false, record);
  // The same text every call (a checkout always ships): built once, so the statement is found by it.
  return { phone, address: buyer.address, text: (readAheadText ??= `select x.*, ${columns.sql} from (${CHECKOUT_STORE}) x`), params: columns.params };
}

let readAheadText: string | undefined;

/**
 * `POST /v1/storefront/{store}/orders`. With an Idempotency-Key (scoped to the store and the
 * buyer's address) a repeat of the same body within 24 h gets the first answer again.
 */
export async function checkout(ctx: Ctx, ref: string, input: StorefrontOrderInput, idempotencyKey?: string | null): Promise<StorefrontCheckoutType> {
  const ahead = await readAhead(ctx, input);
  const [row] = await storefrontRead<OpenStoreRow & { blocking: boolean } & Partial<CartRead>>(
    ctx,
    ahead ? ahead.text : CHECKOUT_STORE,
    ahead ? [...ahead.params, ref, ref] : [ref, ref],
  );
  if (!row) throw closedStore();
  const store = openStoreOf(ctx, row);
  const { address } = await admit(ctx, store, { countRead: false });
  if (!store.settings.checkoutEnabled) throw new AppError('FORBIDDEN', 'This store takes no orders from its storefront');
  // Read ahead in the store's own region: the same reading, not parsed twice.
  const phone = ahead && store.settings.phoneRegion === DEFAULT_PHONE_REGION ? ahead.phone : shopperPhone(input.customerPhone, store, 'customerPhone');
  checkState(input.shipping.state, 'shipping.state');
  if (idempotencyKey != null) checkIdempotencyKey(idempotencyKey);
  // The blocklist before anything else is read or written.
  if (row.blocking && (await blocklistHits(ctx.em as EntityManager, store.id, { phone, ip: address })).length) throw blocked();
  const read = ahead && ahead.phone === phone && ahead.address === address ? (row as CartRead) : undefined;

  const place = async () => (!row.blocking && (await placeOrderAlone(ctx, store, address, phone, input, read))) || (await placeOrder(ctx, store, row.blocking, address, phone, input));
  if (idempotencyKey == null) {
    const { order, token } = await place();
    return { order, orderToken: token, replayed: false };
  }
  const em = ctx.deps.orm.em.fork() as EntityManager;
  const secretKey = ctx.deps.config.secretKey;
  const caller = `storefront/${store.id}/${address}`;
  const kept = await reserveIdempotencyKey(em, secretKey, caller, idempotencyKey, requestHash({ route: 'storefront checkout', input }));
  if (kept) return { ...(kept.body as Omit<StorefrontCheckoutType, 'replayed'>), replayed: true };
  let answer: StorefrontCheckoutType | undefined;
  try {
    const { order, token } = await place();
    answer = { order, orderToken: token, replayed: false };
    return answer;
  } finally {
    if (answer) await keepIdempotentAnswer(em, secretKey, caller, idempotencyKey, { status: 201, headers: {}, body: { order: answer.order, orderToken: answer.orderToken } });
    else await releaseIdempotencyKey(em, caller, idempotencyKey);
  }
}
