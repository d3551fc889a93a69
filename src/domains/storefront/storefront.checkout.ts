import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { checkIdempotencyKey, keepIdempotentAnswer, releaseIdempotencyKey, requestHash, reserveIdempotencyKey } from '../../core/idempotency.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { customerLock, customerRecordOf, customerRecordRead, insertPricedOrder, newOrderId, orderedRecently, type CustomerRecord, type OrderRisk } from '../orders/order.customer.js';
import { quotePromo, redeemPromo, refusalReason } from '../promos/promo.service.js';
import { LIMIT_WINDOWS } from '../stores/store.storefront.js';
import { admit, closedStore, OPEN_STORE, openStoreOf, storefrontRead, type OpenStore, type OpenStoreRow } from './storefront.access.js';
import { blocklistHits, blocklistHitsAny } from './storefront-blocklist.service.js';
import { takeCheckoutSlots } from './storefront-limits.js';
import { cartView, priceCart, shopperPhone, type CouponJudge, type PricedCart } from './storefront.pricing.js';
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

/** The same cart ordered by the same phone within this long is a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

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

/** The order, written or refused as a whole. */
async function placeOrder(ctx: Ctx, store: OpenStore, blocking: boolean, address: string, phone: string, input: StorefrontOrderInput): Promise<{ order: PublicOrderType; token: string }> {
  const { limits } = store.settings;
  return transaction(ctx, async (tx) => {
    // First, so a refused shopper costs one statement each; undone with everything else on a refusal.
    // Then, in the same statement when both slots are granted, one customer's checkouts one at a
    // time: the duplicate check below sees the one before.
    const rules = {
      address: { max: limits.checkoutsPerAddress, windowMs: LIMIT_WINDOWS.checkoutsPerAddress },
      phone: { max: limits.checkoutsPerPhone, windowMs: LIMIT_WINDOWS.checkoutsPerPhone },
    };
    await takeCheckoutSlots(tx.em as EntityManager, store.id, address, phone, rules, customerLock(store.id, phone));
    const orderId = newOrderId();
    const shipping = input.shipping;
    // The customer's record (after the lock) is read by the pricing's statement.
    const cart = await priceCart(
      tx,
      store,
      { items: input.items, shipping: { state: shipping.state, type: shipping.type, methodId: shipping.methodId }, coupon: input.coupon, customerPhone: phone },
      redeemer(tx, store, orderId, phone),
      customerRecordRead(store.id, phone, address, new Date(Date.now() - DUPLICATE_WINDOW_MS)),
    );
    if (cart.problems.length) throw cartInvalid(cart);
    const record = customerRecordOf(cart.alongside);
    if (orderedRecently(record, cart.lines)) throw new AppError('DUPLICATE_ORDER', 'The same order was placed with this phone in the last 10 minutes');
    const risk = riskOf(record, blocking ? await relatedBlocks(tx.em as EntityManager, store.id, record) : { blockedPhone: false, blockedAddress: false });
    const placed = await insertPricedOrder(tx, store.id, {
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
    }, FIRST_STATUS_ROW);
    // A new order: its first status, no parcel yet; the view needs no read after the commit.
    const status = { name: placed.statusName, kind: 'new' };
    return { order: publicOrderView(placed.entity, status, [{ at: placed.entity.createdAt, ...status }], []), token: placed.token };
  });
}

/**
 * `POST /v1/storefront/{store}/orders`. With an Idempotency-Key (scoped to the store and the
 * buyer's address) a repeat of the same body within 24 h gets the first answer again.
 */
export async function checkout(ctx: Ctx, ref: string, input: StorefrontOrderInput, idempotencyKey?: string | null): Promise<StorefrontCheckoutType> {
  const [row] = await storefrontRead<OpenStoreRow & { blocking: boolean }>(ctx, CHECKOUT_STORE, [ref, ref]);
  if (!row) throw closedStore();
  const store = openStoreOf(ctx, row);
  const { address } = await admit(ctx, store, { countRead: false });
  if (!store.settings.checkoutEnabled) throw new AppError('FORBIDDEN', 'This store takes no orders from its storefront');
  const phone = shopperPhone(input.customerPhone, store, 'customerPhone');
  checkState(input.shipping.state, 'shipping.state');
  if (idempotencyKey != null) checkIdempotencyKey(idempotencyKey);
  // The blocklist before anything else is read or written.
  if (row.blocking && (await blocklistHits(ctx.em as EntityManager, store.id, { phone, ip: address })).length) throw blocked();

  const em = ctx.deps.orm.em.fork() as EntityManager;
  const secretKey = ctx.deps.config.secretKey;
  const caller = `storefront/${store.id}/${address}`;
  if (idempotencyKey != null) {
    const kept = await reserveIdempotencyKey(em, secretKey, caller, idempotencyKey, requestHash({ route: 'storefront checkout', input }));
    if (kept) return { ...(kept.body as Omit<StorefrontCheckoutType, 'replayed'>), replayed: true };
  }
  let answer: StorefrontCheckoutType | undefined;
  try {
    const { order, token } = await placeOrder(ctx, store, row.blocking, address, phone, input);
    answer = { order, orderToken: token, replayed: false };
    return answer;
  } finally {
    if (idempotencyKey != null) {
      if (answer) await keepIdempotentAnswer(em, secretKey, caller, idempotencyKey, { status: 201, headers: {}, body: { order: answer.order, orderToken: answer.orderToken } });
      else await releaseIdempotencyKey(em, caller, idempotencyKey);
    }
  }
}
