import { invalid } from '../../../src/core/errors.js';
import { PARCEL } from '../../routes/fragments.js';
import { PROMO } from '../../routes/promos.js';
import { SHIPPING_METHOD, SHIPPING_PRICE } from '../../routes/shipping.js';
import { namedStore, requireStore, storeOrOnly } from '../locate.js';
import { pageArgs, pageList, findRoute, deleteRoute, onResource, STORE_PARAMS } from '../pages.js';
import { PAGE_PARAMS, type Call, type FeeefRoute, type Param } from '../route.js';
import { anyObj, arr, bool, input, int, nnum, nstr, num, obj, oneOf, pageOf, str, strs, time } from '../schema.js';
import { mapInput, type FieldMap } from '../shapes.js';

/**
 * Shipping prices and methods (the shapes Souk took from Feeef), the Yalidine carrier at Feeef's
 * per-provider paths, and promo codes (Feeef's snake_case promo over Souk's store promo).
 */

type Row = Record<string, any>;


/** A list's `status[]`: one status is Souk's filter, several are applied to the walked rows. */
function statusFilter(call: Call) {
  const statuses = call.query.list('status');
  return {
    status: statuses?.length === 1 ? statuses[0] : undefined,
    filter: statuses && statuses.length > 1 ? (r: Row) => statuses.includes(r.status) : null,
  };
}

const priceSchema = obj({ id: str, name: str, logoUrl: nstr, storeId: str, prices: anyObj, status: oneOf('draft', 'published'), createdAt: time });
const methodSchema = obj({ id: str, name: str, description: nstr, logoUrl: nstr, price: num, forks: int, storeId: str, status: oneOf('draft', 'published', 'archived'), policy: oneOf('private', 'public'), createdAt: time });

const toMethod = (m: Row) => ({ ...m, ondarkLogoUrl: null, rates: null, verifiedAt: null, orders: [], source: null });
const methodInput: FieldMap = {
  name: 'name',
  description: 'description',
  logoUrl: 'logoUrl',
  price: 'price',
  status: 'status',
  policy: 'policy',
  shippingPriceId: 'shippingPriceId',
  storeId: null,
  ondarkLogoUrl: null,
  rates: (v) => {
    if (v !== null) throw invalid('rates', 'Souk prices by state with a shipping price (shippingPriceId), not a rates array');
  },
  sourceId: (v) => {
    if (v !== null) throw invalid('sourceId', 'is set by forking (POST /v1/shipping_methods/{id}/fork)');
  },
};
const priceInput: FieldMap = { name: 'name', logoUrl: 'logoUrl', prices: 'prices', status: 'status', currency: 'currency', storeId: null };

// ── promos ─────────────────────────────────────────────────────────────────

/**
 * Feeef's promo is snake_case, its discount a list of [months, percent] pairs (a plan discount).
 * Souk's is a store's checkout code: a percentage reads as `[[0, value]]`; a fixed or
 * free-shipping code keeps `discount: []` and shows its own `type` and `value`.
 */
const toPromo = (p: Row) => ({
  id: p.id,
  code: p.code,
  discount: p.type === 'percentage' ? [[0, p.value]] : [],
  strict: false,
  min_months: null,
  count: p.uses,
  max: p.maxUses,
  starts_at: p.startsAt,
  ends_at: p.endsAt,
  referral_id: null,
  commission_percent: null,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  store_id: p.storeId,
  type: p.type,
  value: p.value,
  active: p.active,
  min_subtotal: p.minSubtotal,
  max_uses_per_customer: p.maxUsesPerCustomer,
  product_ids: p.productIds,
});

const promoSchema = obj({
  id: str,
  code: str,
  discount: arr(arr(num)),
  strict: bool,
  min_months: { type: 'null' },
  count: int,
  max: { type: ['integer', 'null'] },
  starts_at: nstr,
  ends_at: nstr,
  referral_id: { type: 'null' },
  commission_percent: { type: 'null' },
  created_at: time,
  updated_at: time,
});

/** Feeef's discount pairs: one `[0, percent]` pair is a percentage code. */
function percentOf(v: unknown): number {
  const pairs = v as unknown[];
  if (!Array.isArray(pairs) || pairs.length !== 1 || !Array.isArray(pairs[0]) || pairs[0].length !== 2 || pairs[0][0] !== 0 || typeof pairs[0][1] !== 'number') {
    throw invalid('discount', 'must be [[0, percent]]: Souk promo codes take one percentage (or type and value)');
  }
  return pairs[0][1] as number;
}

const promoInput: FieldMap = {
  code: 'code',
  discount: (v, out) => {
    out.type = 'percentage';
    out.value = percentOf(v);
  },
  max: 'maxUses',
  starts_at: 'startsAt',
  ends_at: 'endsAt',
  type: 'type',
  value: 'value',
  active: 'active',
  min_subtotal: 'minSubtotal',
  max_uses_per_customer: 'maxUsesPerCustomer',
  product_ids: 'productIds',
  store_id: null,
  storeId: null,
  strict: (v) => {
    if (v !== false) throw invalid('strict', 'must be false: Souk promos have no plan-length rule');
  },
  min_months: (v) => {
    if (v !== null) throw invalid('min_months', 'must be null: Souk promos have no plan-length rule');
  },
  referral_id: (v) => {
    if (v !== null) throw invalid('referral_id', 'must be null: Souk has no referrals');
  },
  commission_percent: (v) => {
    if (v !== null) throw invalid('commission_percent', 'must be null: Souk has no influencer commissions');
  },
};

const PROMO_GET = `query($storeId: ID!, $id: ID!) { promo(storeId: $storeId, id: $id) { ${PROMO} } }`;

// ── the carrier ────────────────────────────────────────────────────────────

const WILAYAS = 'query($storeId: ID!) { carrierWilayas(storeId: $storeId) { data { code deliverable } } }';
const FEES = 'query($storeId: ID!, $to: String) { carrierFees(storeId: $storeId, to: $to) { data { home stopDesk } } }';
/** Feeef's per-provider path; Souk's only carrier adapter is Yalidine (the others answer 501). */
const YALIDINE = '/stores/{id}/integrations/yalidine';
/** Credentials Feeef's SDK sends along; Souk uses the store's saved integration and never reads them. */
const CREDENTIALS: Record<string, Param> = { id: { type: 'string', description: 'Ignored: the saved integration is used' }, token: { type: 'string', description: 'Ignored' } };
const FEE_CONCURRENCY = 4;

const lowest = (values: Array<number | null>) => {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length ? Math.min(...known) : null;
};

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/shipping_prices',
    summary: "A store's shipping prices (store_id); status[] filters",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ShippingPriceStatus) { shippingPrices(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${SHIPPING_PRICE} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...STORE_PARAMS, status: { type: 'list' } },
    response: pageOf(priceSchema),
    handle: async (call) => {
      const storeId = requireStore(call);
      const { status, filter } = statusFilter(call);
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, status }), { map: (r) => r, filter });
    },
  },
  {
    method: 'POST',
    path: '/shipping_prices',
    summary: "Create a shipping price in the body's storeId: country → state → {home, desk, pickup}",
    operation: `mutation($storeId: ID!, $input: ShippingPriceCreateInput!) { createShippingPrice(storeId: $storeId, input: $input) { ${SHIPPING_PRICE} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: input({ name: str, storeId: str, logoUrl: nstr, prices: anyObj, status: oneOf('draft', 'published'), currency: str }, ['name']),
    response: priceSchema,
    handle: async (call) => call.run({ storeId: requireStore(call, 'storeId'), input: mapInput(call.body, priceInput) }),
  },
  findRoute({
    path: '/shipping_prices/{id}',
    summary: 'Show a shipping price',
    operation: `query($storeId: ID!, $id: ID!) { shippingPrice(storeId: $storeId, id: $id) { ${SHIPPING_PRICE} } }`,
    prefixes: ['shp'],
    map: (r) => r,
    response: priceSchema,
  }),
  {
    method: 'PUT',
    path: '/shipping_prices/{id}',
    summary: 'Change the given fields of a shipping price; prices merge state by state (RFC 7396: null removes)',
    operation: `mutation($storeId: ID!, $id: ID!, $patch: JSONObject!) { patchShippingPrice(storeId: $storeId, id: $id, patch: $patch) { ${SHIPPING_PRICE} } }`,
    query: STORE_PARAMS,
    body: input({ name: str, logoUrl: nstr, prices: anyObj, status: oneOf('draft', 'published'), currency: str, storeId: str }),
    response: priceSchema,
    handle: async (call) => {
      return onResource(call, ['shp'], () => ({ patch: mapInput(call.body, priceInput) }));
    },
  },
  deleteRoute({
    path: '/shipping_prices/{id}',
    summary: 'Delete a shipping price (409 while a shipping method uses it)',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteShippingPrice(storeId: $storeId, id: $id) }',
    prefixes: ['shp'],
  }),
  {
    method: 'GET',
    path: '/shipping_methods',
    summary: "A store's shipping methods (store_id); status[] and policy filter",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ShippingMethodStatus) { shippingMethods(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${SHIPPING_METHOD} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...STORE_PARAMS, status: { type: 'list' }, policy: { type: 'string' } },
    response: pageOf(methodSchema),
    handle: async (call) => {
      const storeId = requireStore(call);
      const { status, filter } = statusFilter(call);
      const policy = call.query.string('policy');
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, status }), {
        map: toMethod,
        filter: filter || policy ? (m) => (!filter || filter(m)) && (!policy || m.policy === policy) : null,
      });
    },
  },
  {
    method: 'POST',
    path: '/shipping_methods',
    summary: "Create a shipping method in the body's storeId (a flat price, or a linked shipping price)",
    operation: `mutation($storeId: ID!, $input: ShippingMethodInput!) { createShippingMethod(storeId: $storeId, input: $input) { ${SHIPPING_METHOD} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: input({ name: str, storeId: str, description: nstr, logoUrl: nstr, ondarkLogoUrl: nstr, price: num, rates: { type: 'null' }, status: str, policy: str, shippingPriceId: nstr }, ['name']),
    response: methodSchema,
    handle: async (call) => toMethod(await call.run({ storeId: requireStore(call, 'storeId'), input: mapInput(call.body, methodInput) })),
  },
  findRoute({
    path: '/shipping_methods/{id}',
    summary: 'Show a shipping method',
    operation: `query($storeId: ID!, $id: ID!) { shippingMethod(storeId: $storeId, id: $id) { ${SHIPPING_METHOD} } }`,
    prefixes: ['shm'],
    map: toMethod,
    response: methodSchema,
  }),
  {
    method: 'PUT',
    path: '/shipping_methods/{id}',
    summary: 'Change the given fields of a shipping method',
    operation: `mutation($storeId: ID!, $id: ID!, $input: ShippingMethodUpdateInput!) { updateShippingMethod(storeId: $storeId, id: $id, input: $input) { ${SHIPPING_METHOD} } }`,
    query: STORE_PARAMS,
    body: input({ name: str, description: nstr, logoUrl: nstr, ondarkLogoUrl: nstr, price: num, rates: { type: 'null' }, status: str, policy: str, shippingPriceId: nstr, storeId: str }),
    response: methodSchema,
    handle: async (call) => {
      return toMethod(await onResource(call, ['shm'], () => ({ input: mapInput(call.body, methodInput) })));
    },
  },
  deleteRoute({
    path: '/shipping_methods/{id}',
    summary: 'Delete a shipping method',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteShippingMethod(storeId: $storeId, id: $id) }',
    prefixes: ['shm'],
  }),
  // The carrier at Feeef's per-provider paths.
  {
    method: 'GET',
    path: `${YALIDINE}/fees`,
    upstream: true,
    summary:
      "Feeef's legacy fee table: one [desk, home] pair per wilaya, in wilaya-code order, from the integration's fromWilaya (each the wilaya's lowest commune fee; one carrier call per deliverable wilaya)",
    operation: FEES,
    operations: [WILAYAS],
    query: CREDENTIALS,
    response: arr(arr(nnum)),
    handle: async (call) => {
      const storeId = call.params.id;
      const wilayas = (await call.run({ storeId }, { operation: WILAYAS })).data as Array<{ code: string; deliverable: boolean }>;
      const size = Math.max(0, ...wilayas.map((w) => Number(w.code)));
      const table: Array<Array<number | null>> = Array.from({ length: size }, () => [null, null]);
      const queue = wilayas.filter((w) => w.deliverable);
      const worker = async () => {
        for (let w = queue.shift(); w; w = queue.shift()) {
          const fees = (await call.run({ storeId, to: w.code })).data as Array<{ home: number | null; stopDesk: number | null }>;
          table[Number(w.code) - 1] = [lowest(fees.map((f) => f.stopDesk)), lowest(fees.map((f) => f.home))];
        }
      };
      await Promise.all(Array.from({ length: FEE_CONCURRENCY }, worker));
      return table;
    },
  },
  {
    method: 'POST',
    path: `${YALIDINE}/send`,
    upstream: true,
    summary: "Ship an order with the store's Yalidine integration {orderId} (credentials in the body are ignored)",
    operation: `mutation($storeId: ID!, $input: CarrierSendInput!) { carrierSend(storeId: $storeId, input: $input) { ${PARCEL} } }`,
    status: 201,
    body: input({ orderId: str, id: str, token: str }, ['orderId']),
    response: obj({ id: str, orderId: str, tracking: nstr, status: str }),
    handle: async (call) => {
      const { orderId } = mapInput(call.body, { orderId: 'orderId', id: null, token: null, key: null, guid: null, apiKey: null, baseUrl: null });
      return call.run({ storeId: call.params.id, input: { orderId } });
    },
  },
  {
    method: 'GET',
    path: `${YALIDINE}/statistics`,
    upstream: true,
    summary: "The store's parcels by status and wilaya, delivery and return rates, cash collected (Souk's carrier statistics)",
    operation: 'query($storeId: ID!) { carrierStatistics(storeId: $storeId) { byStatus deliveredRate returnRate codCollected byWilaya } }',
    response: obj({ byStatus: anyObj, byWilaya: anyObj, codCollected: num }),
    handle: async (call) => call.run({ storeId: call.params.id }),
  },
  // Promo codes.
  {
    method: 'GET',
    path: '/promos',
    summary: "A store's promo codes (store_id), newest first; validNow=1 keeps the usable ones",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $active: Boolean) { promos(storeId: $storeId, limit: $limit, cursor: $cursor, active: $active) { data { ${PROMO} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...STORE_PARAMS, validNow: { type: 'boolean' }, filterator: { type: 'string', description: 'Not supported (400)' } },
    response: pageOf(promoSchema),
    handle: async (call) => {
      if (call.query.has('filterator')) throw invalid('filterator', 'is not supported');
      const storeId = await storeOrOnly(call, 'store_id');
      const now = new Date().toISOString();
      const validNow = call.query.boolean('validNow');
      const usable = (p: Row) => p.active && (!p.startsAt || p.startsAt <= now) && (!p.endsAt || p.endsAt > now) && (p.maxUses === null || p.uses < p.maxUses);
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, active: validNow ? true : undefined }), {
        map: toPromo,
        filter: validNow ? usable : null,
      });
    },
  },
  {
    method: 'GET',
    path: '/promos/{id}',
    summary: 'Show a promo code',
    operation: PROMO_GET,
    query: STORE_PARAMS,
    response: promoSchema,
    handle: async (call) => {
      return toPromo(await onResource(call, ['promo']));
    },
  },
  {
    method: 'POST',
    path: '/promos',
    summary: 'Create a promo code in store_id (query or body): discount [[0, percent]], or type and value; max, starts_at, ends_at',
    operation: `mutation($storeId: ID!, $input: PromoCreateInput!) { createPromo(storeId: $storeId, input: $input) { ${PROMO} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: input(
      {
        code: str,
        discount: arr(arr(num)),
        strict: bool,
        min_months: { type: 'null' },
        max: { type: ['integer', 'null'] },
        starts_at: nstr,
        ends_at: nstr,
        referral_id: { type: 'null' },
        commission_percent: { type: 'null' },
        store_id: str,
        storeId: str,
        type: oneOf('percentage', 'fixed', 'free_shipping'),
        value: num,
        active: bool,
        min_subtotal: nnum,
        max_uses_per_customer: { type: ['integer', 'null'] },
        product_ids: strs,
      },
      ['code'],
    ),
    response: promoSchema,
    handle: async (call) => toPromo(await call.run({ storeId: await storeOrOnly(call, 'store_id', ['store_id', 'storeId']), input: mapInput(call.body, promoInput) })),
  },
  {
    method: 'POST',
    path: '/promos/validate',
    summary: "Public: whether a code is usable in the body's storeId (cart rules such as a minimum subtotal are not checked) → {valid, reason, code}",
    operation: 'query($storeId: ID!, $input: PromoValidateInput!) { validatePromo(storeId: $storeId, input: $input) { valid reason subtotal discount total freeShipping } }',
    body: input({ code: str, storeId: str }, ['code', 'storeId']),
    response: obj({ valid: bool }),
    handle: async (call) => {
      const storeId = namedStore(call);
      if (!storeId) throw invalid('storeId', 'is required: promo codes belong to a store on Souk');
      const { code } = mapInput(call.body, { code: 'code', storeId: null });
      if (typeof code !== 'string' || !code) throw invalid('code', 'is required');
      // No cart: the code alone is checked, so refusals that depend on a cart do not count.
      const v = await call.run({ storeId, input: { code, items: [] } });
      const REASONS: Record<string, string> = { not_found: 'invalid', inactive: 'invalid', expired: 'expired', not_started: 'not_yet_valid', max_uses: 'max_uses', max_uses_customer: 'max_uses' };
      if (!v.valid && REASONS[v.reason]) return { valid: false, reason: REASONS[v.reason], souk_reason: v.reason };
      return { valid: true, code: code.toUpperCase(), discount: [], strict: false, free_shipping: v.freeShipping };
    },
  },
];
