import { markRead, notModifiedFromMemory, rememberAnswer, type ReadMark } from '../../src/domains/storefront/storefront.freshness.js';
import { CACHE, group, route, type RestRequest, type RestRoute, type Revalidation } from '../route.js';

/** The storefront (CONTRACT-3 §17): shoppers without an account. `{store}` is the store's id or slug. */
const base = '/v1/storefront/{store}';

const STOREFRONT = 'id slug name currency logoUrl defaultLocale locales checkoutEnabled phoneRegion';
const PUBLIC_PRODUCT = 'id slug name description price compareAtPrice currency photoUrl images sku inStock available createdAt updatedAt';
const CART = `currency items { productId slug name unitPrice quantity lineTotal } subtotal discount shippingPrice total coupon { code valid reason }
  problems { path code message }`;
export const PUBLIC_ORDER = `id status { name kind } paymentStatus items { productId name unitPrice quantity lineTotal } subtotal discount shippingPrice total
  currency createdAt updatedAt history { at status kind } parcels { trackingNumber status updatedAt }`;

type Json = Record<string, any>;
/** The REST body is one field of the `Storefront` object the document selects. */
const fieldOf = (name: string) => ({
  operationId: `storefront${name[0].toUpperCase()}${name.slice(1)}`,
  result: (value: Record<string, unknown>) => value[name],
  responseSchema: (storefront: Json) => storefront.properties[name],
});

/** `Idempotency-Key` travels as a header; the checkout takes it as a variable (scoped to the store and buyer). */
const idempotencyKey = (req: RestRequest) => {
  const h = req.headers['idempotency-key'];
  return typeof h === 'string' ? { idempotencyKey: h } : {};
};

/** Catalogue answers are remembered per URL under their store's version: a 304 needs no read while it stands. */
const REVALIDATE: Revalidation = {
  mark: (req, deps) => markRead(deps, req.params.store),
  notModified: (ctx, _req, url, ifNoneMatch) => notModifiedFromMemory(ctx, url, ifNoneMatch),
  remember: (ctx, req, mark, answered) => rememberAnswer(ctx, req.params.store, mark as ReadMark, answered),
};

const CATALOG: Pick<RestRoute, 'etag' | 'cacheControl' | 'errors' | 'revalidate'> = { etag: true, cacheControl: CACHE.catalog, errors: [429], revalidate: REVALIDATE };

export default group('storefront', [
  route({
    method: 'GET',
    path: base,
    summary: 'The public store: its name, currency, logo, languages, phone region and whether it takes orders',
    operation: `query($store: String!) { storefront(store: $store) { ${STOREFRONT} } }`,
    ...CATALOG,
  }),
  route({
    method: 'GET',
    path: `${base}/products`,
    summary: 'Active products, newest first or by price or name; q matches the name (case-insensitive); a cursor from another list → 400',
    operation: `query($store: String!, $limit: Int, $cursor: String, $q: String, $sort: StorefrontProductSort) {
      storefront(store: $store) { products(limit: $limit, cursor: $cursor, q: $q, sort: $sort) { data { ${PUBLIC_PRODUCT} } nextCursor } } }`,
    ...fieldOf('products'),
    ...CATALOG,
  }),
  route({
    method: 'GET',
    path: `${base}/products/{idOrSlug}`,
    summary: 'One active product by id or slug; a draft, archived or unknown product → 404',
    operation: `query($store: String!, $idOrSlug: String!) { storefront(store: $store) { product(idOrSlug: $idOrSlug) { ${PUBLIC_PRODUCT} } } }`,
    ...fieldOf('product'),
    ...CATALOG,
  }),
  route({
    method: 'GET',
    path: `${base}/pages/{slug}`,
    summary: 'A published page (sanitized HTML); a draft or unknown page → 404',
    operation: `query($store: String!, $slug: String!) { storefront(store: $store) { page(slug: $slug) { slug moved title html seo { title description } updatedAt etag } } }`,
    ...fieldOf('page'),
    ...CATALOG,
  }),
  route({
    method: 'GET',
    path: `${base}/landing-pages/{slug}`,
    summary: 'A published product landing page; a draft or unknown one → 404',
    operation: `query($store: String!, $slug: String!) { storefront(store: $store) { landingPage(slug: $slug) { id slug name productId content updatedAt } } }`,
    ...fieldOf('landingPage'),
    ...CATALOG,
  }),
  route({
    method: 'GET',
    path: `${base}/shipping`,
    summary: 'Shipping options to a state (?state=16): home and desk, cheapest first; an unknown state code → 400',
    operation: `query($store: String!, $state: String!) { storefront(store: $store) { shipping(state: $state) { state options { methodId name type price currency } } } }`,
    ...fieldOf('shipping'),
    ...CATALOG,
  }),
  route({
    method: 'POST',
    path: `${base}/cart/price`,
    summary: "Price a cart from the store's records (amounts sent are ignored), with the problems that keep it from being ordered",
    operation: `query($store: String!, $input: CartInput!) { storefront(store: $store) { cart(input: $input) { ${CART} } } }`,
    ...fieldOf('cart'),
    cacheControl: CACHE.noStore,
    errors: [429],
  }),
  route({
    method: 'POST',
    path: `${base}/orders`,
    summary:
      "Guest checkout: 201 {order, orderToken}, priced as /cart/price prices it; problems → 422 CART_INVALID; the same cart from the same phone within 10 minutes → 409 DUPLICATE_ORDER. Idempotency-Key is scoped to the store and buyer",
    operation: `mutation($store: String!, $input: StorefrontOrderInput!, $idempotencyKey: String) {
      createStorefrontOrder(store: $store, input: $input, idempotencyKey: $idempotencyKey) { order { ${PUBLIC_ORDER} } orderToken replayed } }`,
    variables: idempotencyKey,
    status: 201,
    reply: (value) => ({
      status: 201,
      headers: { location: '/v1/storefront/orders/current', ...(value.replayed ? { 'idempotent-replayed': 'true' } : {}) },
      body: { order: value.order, orderToken: value.orderToken },
    }),
    location: () => '/v1/storefront/orders/current',
    responseSchema: (field: Json) => ({ type: 'object', required: ['order', 'orderToken'], properties: { order: field.properties.order, orderToken: field.properties.orderToken } }),
    cacheControl: CACHE.noStore,
    errors: [403, 429],
  }),
  route({
    method: 'GET',
    path: '/v1/storefront/orders/current',
    summary: "The order the bearer token (its orderToken) opens, as its customer sees it: status, payment status, items, amounts, history and parcels",
    operation: `query { myOrder { ${PUBLIC_ORDER} } }`,
    cacheControl: CACHE.noStore,
  }),
  route({
    method: 'POST',
    path: '/v1/storefront/orders/current/cancel',
    summary: "The customer cancels the order while its status is of kind new (to the store's first cancelled status); any other kind → 409",
    operation: `mutation { cancelMyOrder { ${PUBLIC_ORDER} } }`,
    cacheControl: CACHE.noStore,
  }),
]);
