import { invalid, type FieldError } from '../../src/core/errors.js';
import { ProblemError } from '../router.js';
import { requireStore } from './locate.js';
import type { Call } from './route.js';
import { FEEEF_STATUS_OF_KIND } from './shapes.js';

/**
 * The SDK's anonymous order calls (CONTRACT-3 §17.8) on the storefront's fields: `orders.send`
 * is a guest checkout, `orders.calculate` prices a cart, `orders.track` reads the public order.
 * Amounts come only from the store's records; answers carry no customer data beyond what the
 * shopper sent in the same request.
 */

type Row = Record<string, any>;

const PUBLIC_ORDER = `id status { name kind } paymentStatus items { productId name unitPrice quantity lineTotal } subtotal discount shippingPrice total
  currency createdAt updatedAt history { at status kind } parcels { trackingNumber status updatedAt }`;

export const CHECKOUT = `mutation($store: String!, $input: StorefrontOrderInput!, $idempotencyKey: String) {
  createStorefrontOrder(store: $store, input: $input, idempotencyKey: $idempotencyKey) { order { ${PUBLIC_ORDER} } orderToken replayed } }`;
export const CART_PRICE = `query($store: String!, $input: CartInput!) { storefront(store: $store) { cart(input: $input) {
  currency items { productId unitPrice quantity lineTotal } subtotal discount shippingPrice total coupon { code valid reason } problems { path code message } } } }`;
export const TRACKING = `query($store: String!, $id: ID!) { orderTracking(store: $store, id: $id) { ${PUBLIC_ORDER} } }`;

/** Feeef's shipping types the storefront ships with: a carrier's stop desk is Souk's `desk`; the merchant's branch (`store`) is not offered to shoppers. */
const DELIVERY_OF: Record<string, string> = { home: 'home', pickup: 'desk' };
const FEEEF_DELIVERY: Record<string, string> = { home: 'home', desk: 'pickup' };

/** The storefront's field paths, as the SDK's body names them. */
const FEEEF_PATH: Array<[RegExp, string]> = [
  [/^shipping\.state/, 'shippingState'],
  [/^shipping\.city/, 'shippingCity'],
  [/^shipping\.address/, 'shippingAddress'],
  [/^shipping\.type/, 'shippingType'],
  [/^shipping\.methodId/, 'shippingMethodId'],
  [/^note/, 'customerNote'],
];
const feeefPath = (path: string) => {
  for (const [re, name] of FEEEF_PATH) if (re.test(path)) return path.replace(re, name);
  return path;
};

/** Runs a storefront document; its refusals name the SDK's fields. */
async function storefrontRun(call: Call, variables: Row, operation: string): Promise<any> {
  try {
    return await call.run(variables, { operation });
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    const p = err.problem as Row;
    if (Array.isArray(p.errors)) {
      const errors = (p.errors as FieldError[]).map((e) => ({ ...e, path: feeefPath(e.path) }));
      const detail = p.code === 'VALIDATION_FAILED' ? errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ') : p.detail;
      throw new ProblemError({ ...(p as ProblemError['problem']), detail, errors }, err.headers);
    }
    throw err;
  }
}

const text = (body: Row, key: string, max?: number): string | undefined => {
  const v = body[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalid(key, 'must be a string');
  if (max !== undefined && v.length > max) throw invalid(key, `must be at most ${max} characters`);
  return v;
};

function deliveryOf(value: unknown): string {
  const t = DELIVERY_OF[String(value ?? 'home')];
  if (!t) throw invalid('shippingType', "must be home or pickup (a store's own branch is not offered to shoppers)");
  return t;
}

/** The SDK's items: productId and quantity priced; variant, offer and addons kept for the merchant. */
function cartItems(body: Row): { items: Row[]; extras: Row[] } {
  const raw = body.items;
  if (!Array.isArray(raw) || raw.length === 0) throw invalid('items', 'must hold at least one item');
  const extras: Row[] = [];
  const items = raw.map((item: unknown, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw invalid(`items.${i}`, 'must be an object');
    const { productId, quantity = 1, variantPath, offerCode, addons } = item as Row;
    if (typeof productId !== 'string' || productId === '') throw invalid(`items.${i}.productId`, 'is required');
    if (!Number.isInteger(quantity) || quantity < 1) throw invalid(`items.${i}.quantity`, 'must be a positive integer');
    const extra = Object.fromEntries(Object.entries({ variantPath, offerCode, addons }).filter(([, v]) => v !== undefined && v !== null));
    extras.push(extra);
    return { productId, quantity };
  });
  return { items, extras };
}

/** Feeef's order fields from the public order, plus what the shopper sent in this request (never read back from the store). */
function feeefOrderOf(order: Row, storeId: string, sent: Row): Row {
  return {
    id: order.id,
    customerName: sent.customerName ?? null,
    customerPhone: sent.customerPhone ?? null,
    customerEmail: sent.customerEmail ?? null,
    customerNote: sent.customerNote ?? null,
    shippingAddress: sent.shippingAddress ?? null,
    shippingCity: sent.shippingCity ?? null,
    shippingState: sent.shippingState ?? null,
    shippingCountry: sent.shippingCountry ?? null,
    shippingMethodId: sent.shippingMethodId ?? null,
    shippingType: sent.shippingType ?? 'home',
    trackingCode: null,
    items: (order.items as Row[]).map((it) => ({ productId: it.productId, productName: it.name, quantity: it.quantity, price: it.unitPrice })),
    subtotal: order.subtotal,
    shippingPrice: order.shippingPrice,
    total: order.total,
    discount: order.discount,
    coupon: sent.coupon ?? null,
    storeId,
    metadata: {},
    status: FEEEF_STATUS_OF_KIND[order.status.kind] ?? 'pending',
    customStatus: null,
    paymentStatus: order.paymentStatus === 'paid' ? 'paid' : 'unpaid',
    deliveryStatus: 'pending',
    currency: order.currency,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/**
 * `orders.send` without a token: a guest checkout. The answer is Feeef's order with
 * `orderToken`, the customer's bearer token for the order (tracking, cancelling, paying on /v1).
 */
export async function guestSend(call: Call, idempotencyKey: string | undefined) {
  const body = call.body;
  const storeId = requireStore(call, 'storeId', ['storeId']);
  if (body.status !== undefined && body.status !== null && body.status !== 'pending') throw invalid('status', 'a guest order is pending');
  const customerPhone = text(body, 'customerPhone');
  if (!customerPhone) throw invalid('customerPhone', 'is required');
  const shippingState = text(body, 'shippingState');
  const shippingCity = text(body, 'shippingCity');
  if (!shippingState) throw invalid('shippingState', 'is required: the wilaya code ("16")');
  if (!shippingCity) throw invalid('shippingCity', 'is required');
  const { items, extras } = cartItems(body);
  const coupon = text(body, 'coupon') ?? text(body, 'couponCode');
  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw invalid('metadata', 'must be an object');
  // What Souk has no column for rides in the merchant's metadata, as the member routes keep it.
  const kept = Object.fromEntries(
    Object.entries({
      source: body.source,
      references: body.references,
      customFields: body.customFields,
      shippingNote: body.shippingNote,
      paymentMethodId: body.paymentMethodId,
      items: extras.some((e) => Object.keys(e).length) ? extras : undefined,
    }).filter(([, v]) => v !== undefined && v !== null),
  );
  const input = {
    customerName: text(body, 'customerName', 120) ?? customerPhone,
    customerPhone,
    ...(text(body, 'customerEmail') ? { customerEmail: text(body, 'customerEmail') } : {}),
    shipping: {
      state: shippingState,
      city: shippingCity,
      ...(text(body, 'shippingAddress') ? { address: text(body, 'shippingAddress') } : {}),
      type: deliveryOf(body.shippingType),
      ...(text(body, 'shippingMethodId') ? { methodId: text(body, 'shippingMethodId') } : {}),
    },
    items,
    ...(coupon ? { coupon } : {}),
    ...(text(body, 'customerNote') ? { note: text(body, 'customerNote') } : {}),
    metadata: Object.keys(kept).length ? { ...(metadata as Row), feeef: { ...((metadata as Row).feeef ?? {}), ...kept } } : metadata,
  };
  const value = await storefrontRun(call, { store: storeId, input, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) }, CHECKOUT);
  const order = feeefOrderOf(value.order, storeId, { ...body, shippingType: FEEEF_DELIVERY[input.shipping.type], coupon: coupon ?? null, customerName: input.customerName });
  return { order: { ...order, orderToken: value.orderToken }, replayed: value.replayed === true };
}

/** `orders.calculate` without a token: the storefront's cart price, in Feeef's pricing (with Souk's details beside). */
export async function guestCalculate(call: Call) {
  const body = call.body;
  const storeId = requireStore(call, 'storeId', ['storeId']);
  const { items } = cartItems(body);
  const state = text(body, 'shippingState');
  const coupon = text(body, 'coupon') ?? text(body, 'couponCode');
  const input = {
    items,
    ...(state ? { shipping: { state, type: deliveryOf(body.shippingType) } } : {}),
    ...(coupon ? { coupon } : {}),
  };
  const cart = (await storefrontRun(call, { store: storeId, input }, CART_PRICE)).cart;
  return {
    pricing: { subtotal: cart.subtotal, shippingPrice: state ? cart.shippingPrice : null, calculatedTotal: cart.total },
    discount: cart.discount,
    currency: cart.currency,
    coupon: cart.coupon,
    problems: cart.problems,
  };
}

/** What Feeef's delivery status is for a parcel's status. */
export const PARCEL_TO_DELIVERY: Record<string, string> = {
  delivered: 'delivered',
  returned: 'returned',
  returning: 'delivering',
  in_transit: 'delivering',
  out_for_delivery: 'delivering',
  picked_up: 'delivering',
  on_hold: 'delivering',
};

/** `orders.track` without a token: the public order as Feeef's track entity; no name, phone or address. */
export async function guestTrack(call: Call, storeId: string, id: string) {
  const o = await storefrontRun(call, { store: storeId, id }, TRACKING);
  const paymentStatus = o.paymentStatus === 'paid' ? 'paid' : 'unpaid';
  const parcel = (o.parcels as Row[])[(o.parcels as Row[]).length - 1];
  const deliveryStatus = parcel ? (PARCEL_TO_DELIVERY[parcel.status] ?? 'pending') : 'pending';
  const history = [
    ...(o.history as Row[]).map((h) => ({ status: FEEEF_STATUS_OF_KIND[h.kind] ?? 'processing', deliveryStatus: 'pending', paymentStatus, createdAt: h.at })),
    ...(o.parcels as Row[]).map((p) => ({ status: FEEEF_STATUS_OF_KIND[o.status.kind] ?? 'processing', deliveryStatus: PARCEL_TO_DELIVERY[p.status] ?? 'pending', paymentStatus, createdAt: p.updatedAt })),
  ].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return {
    id: o.id,
    customerName: null,
    items: (o.items as Row[]).map((it) => ({ productId: it.productId, productName: it.name, quantity: it.quantity, price: it.unitPrice })),
    total: o.total,
    currency: o.currency,
    createdAt: o.createdAt,
    storeId,
    status: FEEEF_STATUS_OF_KIND[o.status.kind] ?? 'processing',
    paymentStatus,
    deliveryStatus,
    history,
  };
}
