import { invalid } from '../../../src/core/errors.js';
import { CART_PRICE, CHECKOUT, guestCalculate, guestSend, guestTrack, PARCEL_TO_DELIVERY, TRACKING } from '../guest.js';
import { missing, namedStore, requireStore, storeFor, storeOfResource } from '../locate.js';
import { envelope, located, pageArgs, pageList, scan, SCAN_LIMIT, tooManyToFilter, type SoukPage, deleteRoute, STORE_PARAMS, FIND_PARAMS } from '../pages.js';
import { assertById, PAGE_PARAMS, Reply, type Call, type FeeefRoute, type Param } from '../route.js';
import { anyObj, arr, input, int, nnum, nstr, num, obj, pageOf, str, time } from '../schema.js';
import {
  deliveryStatusOf,
  FEEEF_STATUS_OF_KIND,
  KIND_OF_FEEEF_STATUS,
  keepIn,
  mapInput,
  metadataWrites,
  ORDER,
  orderCreateInput,
  orderSchema,
  splitMetadata,
  STATUSES,
  toOrder,
  type FieldMap,
} from '../shapes.js';

/**
 * Orders, flat. Feeef's fixed `status` is read from the kind of the order's Souk status and
 * `customStatus` is the status slug itself; a Feeef status written moves the order to the
 * store's first status of that kind, a `customStatus` to that slug.
 */

const GET_ORDER = `query($storeId: ID!, $id: ID!) { order(storeId: $storeId, id: $id) { ${ORDER} } }`;
const ORDERS = `query($storeId: ID!, $limit: Int, $cursor: String, $status: String, $q: String, $createdAfter: String, $createdBefore: String) {
  orders(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status, q: $q, createdAfter: $createdAfter, createdBefore: $createdBefore) { data { ${ORDER} } nextCursor } }`;
const COUNTS = 'query($storeId: ID!) { orderCounts(storeId: $storeId) { total data { slug count } } }';
const CREATE = `mutation($storeId: ID!, $input: OrderCreateInput!) { createOrder(storeId: $storeId, input: $input) { ${ORDER} } }`;
const UPDATE = `mutation($storeId: ID!, $id: ID!, $input: OrderUpdateInput!) { updateOrder(storeId: $storeId, id: $id, input: $input) { ${ORDER} } }`;
const PARCELS = 'query($storeId: ID!, $orderId: ID) { parcels(storeId: $storeId, orderId: $orderId, limit: 200) { data { status history { status occurredAt } } } }';
const PRODUCT = 'query($storeId: ID!, $id: ID!) { product(storeId: $storeId, id: $id) { id price } }';

type Row = Record<string, any>;
interface Status {
  id: string;
  slug: string;
  kind: string;
  position: number;
}

const statusesOf = async (call: Call, storeId: string): Promise<Status[]> => call.run({ storeId }, { operation: STATUSES });
const kindsOf = (statuses: Status[]) => new Map(statuses.map((s) => [s.id, s.kind]));

/** The slug a Feeef `status` or `customStatus` write asks for. */
function targetSlug(statuses: Status[], body: Row): string | undefined {
  if (body.customStatus !== undefined && body.customStatus !== null) {
    if (typeof body.customStatus !== 'string' || !statuses.some((s) => s.slug === body.customStatus)) throw invalid('customStatus', 'must be a status slug of the store');
    return body.customStatus;
  }
  if (body.status === undefined || body.status === null) return undefined;
  const kind = KIND_OF_FEEEF_STATUS[String(body.status)];
  if (!kind) throw invalid('status', `must be one of ${Object.keys(KIND_OF_FEEEF_STATUS).join(', ')}`);
  const first = statuses.filter((s) => s.kind === kind).sort((a, b) => a.position - b.position)[0];
  if (!first) throw invalid('status', `the store has no status of kind ${kind}`);
  return first.slug;
}

const PAYMENT_OF_FEEEF: Record<string, string[]> = { paid: ['paid', 'partially_refunded'], unpaid: ['unpaid', 'pending', 'refunded'], received: ['paid'] };
const ANY = '$$any';

/** The filters of Feeef's order list that Souk's `orders` field does not take, on walked rows. */
function orderFilter(call: Call, kinds: Map<string, string>): ((o: Row) => boolean) | null {
  const tests: Array<(o: Row) => boolean> = [];
  const statuses = call.query.list('status');
  if (statuses?.length) {
    for (const s of statuses) if (!KIND_OF_FEEEF_STATUS[s]) throw invalid('status', `must be one of ${Object.keys(KIND_OF_FEEEF_STATUS).join(', ')}`);
    tests.push((o) => statuses.includes(FEEEF_STATUS_OF_KIND[kinds.get(o.statusId) ?? 'new']));
  }
  const custom = call.query.list('customStatus');
  if (custom && custom.length > 1) tests.push((o) => custom.includes(o.status));
  const delivery = call.query.string('deliveryStatus');
  if (delivery) tests.push((o) => deliveryStatusOf(o, kinds.get(o.statusId)) === delivery);
  const payment = call.query.string('paymentStatus');
  if (payment) {
    if (!PAYMENT_OF_FEEEF[payment]) throw invalid('paymentStatus', 'must be unpaid, paid or received');
    tests.push((o) => PAYMENT_OF_FEEEF[payment].includes(o.paymentStatus));
  }
  const kept = (o: Row) => splitMetadata(o.metadata).kept;
  const among = (key: string, field: string) => {
    const wanted = call.query.list(key);
    if (wanted?.length) tests.push((o) => [kept(o)[field]].flat().some((v) => wanted.includes(v)));
  };
  among('source', 'source');
  among('tags', 'tags');
  among('references', 'references');
  const products = call.query.list('products');
  if (products?.length) tests.push((o) => (o.items as Row[]).some((i) => products.includes(i.productId)));
  const state = call.query.string('shippingState');
  if (state) tests.push((o) => o.shippingAddress?.wilayaCode === state);
  const city = call.query.string('shippingCity');
  if (city) tests.push((o) => o.shippingAddress?.communeName === city);
  const service = call.query.string('deliveryService');
  if (service) tests.push((o) => (service === 'none' ? !o.fulfillment?.parcelId : service === 'yalidine' && Boolean(o.fulfillment?.parcelId)));
  for (const [key, field] of [
    ['variant', 'variantPath'],
    ['offer', 'offerCode'],
  ] as const) {
    const v = call.query.string(key);
    if (v) tests.push((o) => (Array.isArray(kept(o).items) ? (kept(o).items as Row[]) : []).some((x) => (v === ANY ? Boolean(x?.[field]) : x?.[field] === v)));
  }
  if (call.query.has('confirmer')) throw invalid('confirmer', 'is not supported: Souk does not assign orders to confirmers');
  return tests.length ? (o) => tests.every((t) => t(o)) : null;
}

const LIST_PARAMS: Record<string, Param> = {
  ...PAGE_PARAMS,
  store_id: { type: 'string' },
  storeId: { type: 'string' },
  store_ids: { type: 'list', description: 'Several stores, merged newest first' },
  status: { type: 'list', description: "Feeef's fixed statuses" },
  customStatus: { type: 'list', description: 'Status slugs' },
  deliveryStatus: { type: 'string' },
  paymentStatus: { type: 'string' },
  source: { type: 'list' },
  tags: { type: 'list' },
  references: { type: 'list' },
  created_before: { type: 'string' },
  created_after: { type: 'string' },
  q: { type: 'string', description: 'Part of the customer name or phone' },
  confirmer: { type: 'string', description: 'Not supported (400)' },
  products: { type: 'list' },
  shippingState: { type: 'string' },
  shippingCity: { type: 'string' },
  deliveryService: { type: 'string', description: 'none or yalidine (Souk’s carrier)' },
  variant: { type: 'string' },
  offer: { type: 'string' },
};

/** Fields of Feeef's order update Souk derives itself (totals, payment, delivery) or fixes at creation (shipping). */
const FIXED = ['shippingAddress', 'shippingCity', 'shippingState', 'shippingCountry', 'shippingType', 'shippingMethodId', 'coupon', 'subtotal', 'shippingPrice', 'total', 'discount', 'paymentStatus', 'deliveryStatus'];

async function createOrder(call: Call, operation?: string) {
  const storeId = requireStore(call, 'storeId');
  const { status, customStatus, paymentStatus, deliveryStatus, ...rest } = call.body;
  const statuses = await statusesOf(call, storeId);
  const slug = targetSlug(statuses, { status, customStatus });
  const first = [...statuses].sort((a, b) => a.position - b.position)[0];
  if (slug !== undefined && slug !== first?.slug) throw invalid(customStatus !== undefined ? 'customStatus' : 'status', `a new order takes the store's first status (${first?.slug}); change it with an update`);
  if (paymentStatus !== undefined && paymentStatus !== 'unpaid') throw invalid('paymentStatus', 'a new order is unpaid: Souk records payments through its payment routes');
  if (deliveryStatus !== undefined && deliveryStatus !== 'pending') throw invalid('deliveryStatus', 'a new order is pending delivery: Souk records it from parcels');
  const mapped = mapInput(rest, orderCreateInput());
  mapped.customerName ??= mapped.customerPhone;
  return toOrder(await call.run({ storeId, input: mapped }, operation ? { operation } : undefined), kindsOf(statuses));
}

const createBody = {
  ...input({ storeId: str, customerName: str, customerPhone: str, items: arr(obj({ productId: str, quantity: int }, [])), shippingType: str }, ['storeId', 'customerPhone', 'items']),
  additionalProperties: true,
};

const CREATE_ROUTE = { operation: CREATE, operations: [STATUSES], status: 201 as const, body: createBody, response: orderSchema, handle: (call: Call) => createOrder(call) };

/** A guest's order: the member order's fields (no custom status: the slug is the store's), and the customer's token. */
const sendSchema = { ...orderSchema, properties: { ...(orderSchema.properties as object), customStatus: nstr, orderToken: str } };

const trackSchema = obj({
  id: str,
  customerName: nstr,
  items: arr(anyObj),
  total: num,
  createdAt: time,
  storeId: str,
  status: str,
  history: arr(obj({ status: str, deliveryStatus: str, paymentStatus: str, createdAt: time })),
});


export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/orders',
    summary:
      "Orders of store_id (or several store_ids), newest first; Souk's filters (customStatus slug, q, created_after, created_before) and Feeef's (status, deliveryStatus, paymentStatus, source, tags, references, products, shipping, variant, offer) on the walked list",
    operation: ORDERS,
    operations: [STATUSES, COUNTS],
    query: LIST_PARAMS,
    response: pageOf(orderSchema),
    handle: async (call) => {
      const args = pageArgs(call.query);
      const many = call.query.list('store_ids');
      const storeIds = many?.length ? [...new Set(many)] : [requireStore(call)];
      const custom = call.query.list('customStatus');
      const native = {
        status: custom?.length === 1 ? custom[0] : undefined,
        q: call.query.string('q'),
        createdAfter: call.query.string('created_after'),
        createdBefore: call.query.string('created_before'),
      };
      const kinds = new Map<string, string>();
      for (const storeId of storeIds) for (const [k, v] of kindsOf(await statusesOf(call, storeId))) kinds.set(k, v);
      const filter = orderFilter(call, kinds);
      const map = (o: Row) => toOrder(o, kinds);
      const fetchOf = (storeId: string) => (cursor: string | null, limit: number): Promise<SoukPage<Row>> => call.run({ storeId, cursor, limit, ...native });
      if (storeIds.length === 1) {
        const storeId = storeIds[0];
        let total: number | undefined;
        // Counting orders is cheap: the store's status counts hold the exact total of an unfiltered list.
        if (!filter && !native.q && !native.createdAfter && !native.createdBefore) {
          const counts = await call.run({ storeId }, { operation: COUNTS });
          total = native.status ? ((counts.data as Row[]).find((c) => c.slug === native.status)?.count ?? 0) : counts.total;
        }
        return pageList(args, fetchOf(storeId), { map, filter, total });
      }
      const walked = await Promise.all(storeIds.map((storeId) => scan(fetchOf(storeId), Math.max(args.start + args.perPage, SCAN_LIMIT))));
      const complete = walked.every((w) => w.complete);
      if (filter && !complete) throw tooManyToFilter();
      const rows = walked.flatMap((w) => w.rows).filter(filter ?? (() => true));
      rows.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
      return envelope(args, rows, complete, { map });
    },
  },
  { method: 'POST', path: '/orders', summary: "Create an order in the body's storeId; it takes the store's first status (Feeef fields Souk has no column for are kept in metadata.feeef)", ...CREATE_ROUTE },
  {
    method: 'POST',
    path: '/orders/send',
    summary:
      "Send an order. Without a token: a guest checkout in the body's storeId (the storefront's, priced from the store's records), answered with the order and its `orderToken`, the customer's bearer token for it; Idempotency-Key is honoured. With a member's token: as POST /orders",
    operation: CHECKOUT,
    // The storefront's limits, and the geo data its shipping checks read.
    errors: [429, 503],
    operations: [CREATE, STATUSES],
    status: 201,
    body: createBody,
    response: sendSchema,
    handle: async (call) => {
      if (call.ctx.actor) return createOrder(call, CREATE);
      const key = call.headers['idempotency-key'];
      const { order, replayed } = await guestSend(call, typeof key === 'string' ? key : undefined);
      return new Reply(201, order, { 'cache-control': 'no-store', ...(replayed ? { 'idempotent-replayed': 'true' } : {}) });
    },
  },
  {
    method: 'GET',
    path: '/orders/{id}',
    summary: 'Show an order',
    operation: GET_ORDER,
    operations: [STATUSES],
    query: FIND_PARAMS,
    response: orderSchema,
    handle: async (call) => {
      assertById(call.query);
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['ord']);
      const order = await located(id, call.run({ storeId, id }));
      return toOrder(order, kindsOf(await statusesOf(call, storeId)));
    },
  },
  {
    method: 'PUT',
    path: '/orders/{id}',
    summary: 'Change the given fields of an order: customer, items, metadata, status (a Feeef status or a customStatus slug); shipping, totals and payment are fixed (400)',
    operation: UPDATE,
    operations: [STATUSES, GET_ORDER],
    query: STORE_PARAMS,
    body: { type: 'object', additionalProperties: true },
    response: orderSchema,
    handle: async (call) => {
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['ord']);
      const { status, customStatus, items, ...rest } = call.body;
      for (const key of FIXED) if (rest[key] !== undefined) throw invalid(key, 'cannot be changed once the order exists (Souk derives it or fixes it at creation)');
      const statuses = await statusesOf(call, storeId);
      const spec: FieldMap = { ...orderCreateInput() };
      for (const key of [...FIXED, 'storeId', 'id']) delete spec[key];
      const { metadata, ...mapped } = mapInput(rest, spec);
      if (items !== undefined) {
        // New items: their variants and offers replace the old ones kept (none: dropped).
        const withItems = mapInput({ items }, { items: orderCreateInput().items });
        mapped.items = withItems.items;
        keepIn('items')(withItems.metadata?.feeef?.items ?? null, mapped);
      }
      const written = mapped.metadata ? { ...(metadata ?? {}), feeef: { ...(metadata?.feeef ?? {}), ...mapped.metadata.feeef } } : metadata;
      delete mapped.metadata;
      Object.assign(mapped, await metadataWrites(written, rest.metadata !== undefined, () => located(id, call.run({ storeId, id }, { operation: GET_ORDER }))));
      const slug = targetSlug(statuses, { status, customStatus });
      if (slug !== undefined) mapped.status = slug;
      return toOrder(await located(id, call.run({ storeId, id, input: mapped })), kindsOf(statuses));
    },
  },
  deleteRoute({
    path: '/orders/{id}',
    summary: 'Delete an order (emits orderDeleted)',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteOrder(storeId: $storeId, id: $id) }',
    prefixes: ['ord'],
  }),
  {
    method: 'GET',
    path: '/orders/{id}/track',
    summary:
      "An order's status and its delivery history. Without a token, anyone with the id (the order's store serving its storefront): no name, phone or address, the status history and the parcels' statuses; unknown id → 404. With a member's token: also the customer's name, and the parcels' events",
    operation: TRACKING,
    // The storefront's limits, and the geo data its shipping checks read.
    errors: [429, 503],
    operations: [GET_ORDER, STATUSES, PARCELS],
    query: STORE_PARAMS,
    response: trackSchema,
    handle: async (call) => {
      const id = call.params.id;
      if (!call.ctx.actor) {
        // Anyone with the id: the order's store only routes the storefront's read, which answers the public view.
        const store = namedStore(call) ?? (await storeOfResource(call.ctx, id, ['ord']));
        if (!store) throw missing(id);
        return guestTrack(call, store, id);
      }
      const storeId = await storeFor(call, id, ['ord']);
      const o = toOrder(await located(id, call.run({ storeId, id }, { operation: GET_ORDER })), kindsOf(await statusesOf(call, storeId)));
      const parcels = (await call.run({ storeId, orderId: id }, { operation: PARCELS })).data as Row[];
      const history = parcels
        .flatMap((p) => p.history as Row[])
        .sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : 1))
        .map((h) => ({ status: o.status, deliveryStatus: PARCEL_TO_DELIVERY[h.status] ?? 'pending', paymentStatus: o.paymentStatus, createdAt: h.occurredAt }));
      return { id: o.id, customerName: o.customerName, items: o.items, total: o.total, createdAt: o.createdAt, storeId: o.storeId, status: o.status, history };
    },
  },
  {
    method: 'POST',
    path: '/orders/calculate',
    summary:
      "Price a cart in the body's storeId. Without a token: the storefront's cart price (prices, coupon and shipping to shippingState from the store's records; amounts sent are ignored) with Souk's problems beside. With a member's token: subtotal from the products' prices (or the item price given), shipping null",
    operation: CART_PRICE,
    // The storefront's limits, and the geo data its shipping checks read.
    errors: [429, 503],
    operations: [PRODUCT],
    body: input({ storeId: str, items: arr(anyObj), shippingState: nstr, shippingCountry: nstr, shippingType: nstr, shippingAddress: nstr, coupon: nstr }, ['storeId', 'items']),
    response: obj({ pricing: obj({ subtotal: num, shippingPrice: nnum, calculatedTotal: num }) }),
    handle: async (call) => {
      if (!call.ctx.actor) return guestCalculate(call);
      const storeId = requireStore(call, 'storeId');
      const { items } = mapInput(call.body, { storeId: null, items: 'items', shippingState: null, shippingCountry: null, shippingType: null, shippingAddress: null, coupon: null });
      if (!Array.isArray(items) || items.length === 0 || items.length > 100) throw invalid('items', 'must hold 1 to 100 items');
      let cents = 0;
      for (const [i, item] of (items as Row[]).entries()) {
        const qty = item?.quantity ?? 1;
        if (!Number.isInteger(qty) || qty < 1) throw invalid(`items.${i}.quantity`, 'must be a positive integer');
        let price = item?.price;
        if (price === undefined || price === null) {
          if (typeof item?.productId !== 'string') throw invalid(`items.${i}.productId`, 'is required without a price');
          price = (await located(item.productId, call.run({ storeId, id: item.productId }, { operation: PRODUCT }))).price;
        }
        if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) throw invalid(`items.${i}.price`, 'must be a number from 0');
        cents += Math.round(price * 100) * qty - Math.round((typeof item?.discount === 'number' ? item.discount : 0) * 100);
      }
      const subtotal = cents / 100;
      return { pricing: { subtotal, shippingPrice: null, calculatedTotal: subtotal } };
    },
  },
  {
    method: 'POST',
    path: '/orders/return',
    summary: "Return an order: it moves to the store's first status of kind returned, which gives its stock back (all of its items; deltas are not read)",
    operation: UPDATE,
    operations: [STATUSES],
    body: input({ orderId: str, reason: str, correlationRef: str, deltas: arr(anyObj) }, ['orderId']),
    response: obj({ message: str }),
    handle: async (call) => {
      const { orderId } = mapInput(call.body, { orderId: 'orderId', reason: null, correlationRef: null, deltas: null });
      if (typeof orderId !== 'string' || !orderId) throw invalid('orderId', 'is required');
      const storeId = namedStore(call) ?? (await storeFor(call, orderId, ['ord']));
      const statuses = await statusesOf(call, storeId);
      const returned = statuses.filter((s) => s.kind === 'returned').sort((a, b) => a.position - b.position)[0];
      if (!returned) throw invalid('orderId', 'the store has no status of kind returned');
      await located(orderId, call.run({ storeId, id: orderId, input: { status: returned.slug } }));
      return { message: `Order ${orderId} returned (${returned.slug})` };
    },
  },
];
