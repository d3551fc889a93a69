import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import { lineMinor, sumMinor, toMajor } from '../../core/money.js';
import { inTransaction } from '../../core/tx.js';
import { e164Phone } from '../../lib/phone.js';
import type { PromoOutcome, PricedLine } from '../promos/promo.service.js';
import type { DeliveryType } from '../shipping/shipping.entity.js';
import { optionsOf, publishedMethods, type PublishedMethod, type ShippingOption } from '../shipping/shipping.service.js';
import { storefrontRead, type OpenStore } from './storefront.access.js';
import { checkState, SHOP_COUNTRY } from './storefront.catalog.js';
import type { CartPriceType, CartProblemType } from './storefront.types.js';

/**
 * One pricing of a cart (CONTRACT-3 §17.4), used by `POST /cart/price` and by the checkout, so an
 * order can never cost what its cart did not: prices, discounts and shipping come from the store's
 * records only, never from the request. Amounts in minor units of the store's currency.
 */

export interface CartRequest {
  items: ReadonlyArray<{ productId: string; quantity: number }>;
  shipping?: { state: string; type: string; methodId?: string | null } | null;
  coupon?: string | null;
  /** E.164 already (see `shopperPhone`). */
  customerPhone?: string | null;
}

export interface PricedCartLine {
  productId: string;
  slug: string;
  name: string;
  unitPrice: number;
  quantity: number;
  lineTotal: number;
}

export interface PricedCart {
  currency: string;
  lines: PricedCartLine[];
  subtotal: number;
  discount: number;
  shippingPrice: number;
  total: number;
  coupon: { code: string; valid: boolean; reason: string | null; freeShipping: boolean } | null;
  shipping: ShippingOption | null;
  problems: CartProblemType[];
}

/** How a code is judged: quoted for a cart, redeemed (a use counted, caps taken) for an order. */
export type CouponJudge = (code: string, lines: PricedLine[]) => Promise<PromoOutcome & { code: string }>;

export interface ProductFacts {
  id: string;
  slug: string;
  name: string;
  price: string | number;
  stock: number;
  allow_backorder: boolean;
  status: string;
}

/** A shopper's phone in the store's region, E.164; anything else is a 400 at `path`. */
export function shopperPhone(raw: string, store: OpenStore, path: string): string {
  const phone = e164Phone(raw, store.settings.phoneRegion);
  if (!phone) throw invalid(path, `must be a valid phone number (national numbers are read as ${store.settings.phoneRegion})`);
  return phone;
}

/** What a cart's pricing reads: its products, the store's published methods when it ships, and `alongside` after them. */
export interface CartRead {
  products: ProductFacts[];
  methods: PublishedMethod[] | null;
  alongside?: unknown;
}

/**
 * The select list that reads a cart (the columns of `CartRead`), with its bindings. The store's id
 * is a binding, or (`{ sql }`) a column of the caller's statement; `lock` share-locks the products
 * (in an order's transaction: none is deleted or repriced under it). `alongside` (a select-list
 * expression and its bindings) is read by the same statement, after them: a read the caller needs
 * anyway, without its own round trip.
 */
export function cartReadColumns(store: string | { sql: string }, cart: CartRequest, lock: boolean, alongside?: { sql: string; params: unknown[] }): { sql: string; params: unknown[] } {
  const refs = [...new Set(cart.items.map((i) => i.productId))];
  const id = typeof store === 'string' ? '?' : store.sql;
  const bound = typeof store === 'string' ? [store] : [];
  return {
    sql: `(select coalesce(jsonb_agg(to_jsonb(p)), '[]') from (select id, slug, name, price, stock, allow_backorder, status from products
               where store_id = ${id} and (id = any(?::text[]) or slug = any(?::text[]))${lock ? ' for share' : ''}) p) as products,
            ${cart.shipping ? `(select coalesce(jsonb_agg(to_jsonb(m) order by m.id), '[]') from (${publishedMethods(id)}) m)` : 'null'} as methods${alongside ? `,\n            ${alongside.sql} as alongside` : ''}`,
    params: [...bound, refs, refs, ...(cart.shipping ? bound : []), ...(alongside?.params ?? [])],
  };
}

/** Whether the cart holds no more lines than the store takes. */
export const cartFits = (store: OpenStore, cart: CartRequest): boolean => cart.items.length <= store.settings.maxItems;

/** What a cart must be before anything is read: 400 at its path otherwise. */
function checkCart(store: OpenStore, cart: CartRequest): void {
  if (!cartFits(store, cart)) throw invalid('items', `must hold at most ${store.settings.maxItems} items`);
  if (cart.shipping) checkState(cart.shipping.state, 'shipping.state');
}

/** Prices a cart from what `cartReadColumns` read (in the statement that read it, or in one of the caller's); `alongside` comes back as read. */
export async function priceCart(
  ctx: Ctx,
  store: OpenStore,
  cart: CartRequest,
  judge: CouponJudge,
  alongside?: { sql: string; params: unknown[] },
): Promise<PricedCart & { alongside?: unknown; facts: ProductFacts[] }> {
  checkCart(store, cart);
  const columns = cartReadColumns(store.id, cart, inTransaction(ctx), alongside);
  const [read] = await storefrontRead<CartRead>(ctx, `select ${columns.sql}`, columns.params);
  return priceRead(store, cart, read, judge);
}

/** The pricing of a cart whose records were read (`cartReadColumns`) and that passed `checkCart`. */
export async function priceRead(store: OpenStore, cart: CartRequest, read: CartRead, judge: CouponJudge): Promise<PricedCart & { alongside?: unknown; facts: ProductFacts[] }> {
  const { settings } = store;
  const shipping = cart.shipping ? { ...cart.shipping, state: checkState(cart.shipping.state, 'shipping.state') } : null;
  const rows = read.products;
  const byRef = new Map<string, ProductFacts>();
  for (const r of rows) byRef.set(r.slug, r);
  // An id wins over another product's slug that happens to read the same.
  for (const r of rows) byRef.set(r.id, r);

  const problems: CartProblemType[] = [];
  const lines: PricedCartLine[] = [];
  const wanted = new Map<string, number>();
  cart.items.forEach((item, i) => {
    const p = byRef.get(item.productId);
    if (!p || p.status !== 'active') {
      problems.push({ path: `items.${i}.productId`, code: 'UNAVAILABLE', message: 'This product is not available' });
      return;
    }
    if (item.quantity > settings.maxQuantity) problems.push({ path: `items.${i}.quantity`, code: 'QUANTITY', message: `At most ${settings.maxQuantity} of one product per order` });
    wanted.set(p.id, (wanted.get(p.id) ?? 0) + item.quantity);
    const unit = Number(p.price);
    lines.push({ productId: p.id, slug: p.slug, name: p.name, unitPrice: unit, quantity: item.quantity, lineTotal: lineMinor(unit, item.quantity) });
  });
  // Stock is judged per product, over every line naming it.
  cart.items.forEach((item, i) => {
    const p = byRef.get(item.productId);
    if (!p || p.status !== 'active' || p.allow_backorder) return;
    const available = Math.max(0, p.stock);
    if ((wanted.get(p.id) ?? 0) > available) {
      problems.push({
        path: `items.${i}.quantity`,
        code: 'OUT_OF_STOCK',
        message: settings.showStockLevels ? `Only ${available} available` : 'Not enough of this product in stock',
      });
    }
  });
  const subtotal = sumMinor(lines.map((l) => l.lineTotal));

  let chosen: ShippingOption | null = null;
  if (shipping) {
    const options = optionsOf(read.methods ?? [], store.currency, SHOP_COUNTRY, shipping.state, [shipping.type as DeliveryType]);
    chosen = (shipping.methodId ? options.find((o) => o.methodId === shipping.methodId) : options[0]) ?? null;
    if (!chosen) {
      problems.push({
        path: shipping.methodId ? 'shipping.methodId' : 'shipping',
        code: 'SHIPPING_UNAVAILABLE',
        message: shipping.methodId ? `This shipping method does not deliver ${shipping.type} to state ${shipping.state}` : `Nothing ships ${shipping.type} to state ${shipping.state}`,
      });
    }
  }
  const shippingPrice = chosen?.price ?? 0;

  let coupon: PricedCart['coupon'] = null;
  let discount = 0;
  if (cart.coupon) {
    const outcome = await judge(cart.coupon, lines.map((l) => ({ productId: l.productId, quantity: l.quantity, price: l.unitPrice })));
    coupon = { code: outcome.code, valid: outcome.reason === null, reason: outcome.reason, freeShipping: outcome.freeShipping };
    if (outcome.reason) problems.push({ path: 'coupon', code: 'COUPON_INVALID', message: `The code cannot be used: ${outcome.reason}` });
    else discount = outcome.freeShipping ? shippingPrice : outcome.discount;
  }
  return {
    currency: store.currency,
    lines,
    subtotal,
    discount,
    shippingPrice,
    total: Math.max(0, subtotal + shippingPrice - discount),
    coupon,
    shipping: chosen,
    problems,
    // The products as read: what the cart's prices and availability were judged on.
    facts: rows,
    ...('alongside' in read ? { alongside: read.alongside } : {}),
  };
}

/** The cart as the API shows it: major units. */
export function cartView(c: PricedCart): CartPriceType {
  const major = (minor: number) => toMajor(minor, c.currency);
  return {
    currency: c.currency,
    items: c.lines.map((l) => ({ productId: l.productId, slug: l.slug, name: l.name, unitPrice: major(l.unitPrice), quantity: l.quantity, lineTotal: major(l.lineTotal) })),
    subtotal: major(c.subtotal),
    discount: major(c.discount),
    shippingPrice: major(c.shippingPrice),
    total: major(c.total),
    coupon: c.coupon ? { code: c.coupon.code, valid: c.coupon.valid, reason: c.coupon.reason } : null,
    problems: c.problems,
  };
}
