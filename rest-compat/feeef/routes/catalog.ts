import { invalid } from '../../../src/core/errors.js';
import { requireStore, storeFor, storeOrOnly } from '../locate.js';
import { located, pageArgs, pageList, findRoute, deleteRoute, STORE_PARAMS } from '../pages.js';
import { PAGE_PARAMS, type Call, type FeeefRoute, type Param } from '../route.js';
import { anyObj, input, int, nnum, nobj, nstr, num, obj, oneOf, pageOf, str, time } from '../schema.js';
import { countsByDay, LOR, lorSchema, mapInput, PRODUCT, productInput, productSchema, metadataWrites, toProduct, toSoukProductStatus, type FieldMap } from '../shapes.js';

/**
 * Products and product landing pages, flat: the store comes from `store_id` (or `storeId`),
 * the body's `storeId`, or the resource's own row. Finds take `?by=id`, and products `?by=slug`
 * with the store named.
 */

const LOR_OF = (field: 'productLor' | 'landingPageLor', idVar: 'productId' | 'landingPageId') =>
  `query($storeId: ID!, $${idVar}: ID!, $from: String, $to: String, $interval: String, $tz: String) { ${field}(storeId: $storeId, ${idVar}: $${idVar}, from: $from, to: $to, interval: $interval, tz: $tz) { lor { ${LOR} } } }`;
const PRODUCT_LOR = LOR_OF('productLor', 'productId');
const LANDING_LOR = LOR_OF('landingPageLor', 'landingPageId');

const GET_PRODUCT = `query($storeId: ID!, $id: ID!) { product(storeId: $storeId, id: $id) { ${PRODUCT} } }`;
const PRODUCT_BY_SLUG = `query($storeId: ID!, $slug: String!) { productBySlug(storeId: $storeId, slug: $slug) { ${PRODUCT} } }`;

const PRODUCT_FIND_PARAMS: Record<string, Param> = { ...STORE_PARAMS, by: { type: 'string', description: 'id (default) or slug (with the store named)' } };
const LOR_PARAMS: Record<string, Param> = { from: { type: 'string' }, to: { type: 'string' }, interval: { type: 'string' }, tz: { type: 'string' } };

const lorArgs = (call: Call) => ({ from: call.query.string('from'), to: call.query.string('to'), interval: call.query.string('interval'), tz: call.query.string('tz') });

/** A product by `?by=id` (the store from the product) or `?by=slug` (the store named). */
async function findProduct(call: Call): Promise<Record<string, any>> {
  const by = call.query.string('by') ?? 'id';
  const id = call.params.id;
  if (by === 'slug') return call.run({ storeId: requireStore(call), slug: id }, { operation: PRODUCT_BY_SLUG });
  if (by !== 'id') throw invalid('by', 'must be id or slug');
  return located(id, call.run({ storeId: await storeFor(call, id, ['prod']), id }, { operation: GET_PRODUCT }));
}

/** Product list filters Souk's `products` field does not take, applied to the walked rows. */
function productFilter(call: Call): { status?: string; filter: ((p: Record<string, any>) => boolean) | null; sort?: (a: any, b: any) => number } {
  const statuses = call.query.list('status')?.map((s) => toSoukProductStatus(s));
  const q = call.query.string('q')?.toLowerCase();
  const category = call.query.string('category_id');
  const min = call.query.string('min_price') !== undefined ? Number(call.query.string('min_price')) : undefined;
  const max = call.query.string('max_price') !== undefined ? Number(call.query.string('max_price')) : undefined;
  if (min !== undefined && !Number.isFinite(min)) throw invalid('min_price', 'must be a number');
  if (max !== undefined && !Number.isFinite(max)) throw invalid('max_price', 'must be a number');
  const inStock = call.query.boolean('in_stock');
  const sortBy = call.query.string('sort_by');
  const order = call.query.string('sort_order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalid('sort_order', 'must be asc or desc');
  if (sortBy !== undefined && sortBy !== 'createdAt' && sortBy !== 'price') throw invalid('sort_by', 'must be createdAt or price (Souk does not count sales or views)');
  const tests: Array<(p: Record<string, any>) => boolean> = [];
  if (statuses && statuses.length > 1) tests.push((p) => statuses.includes(p.status));
  if (q) tests.push((p) => [p.name, p.slug, p.sku].some((s) => typeof s === 'string' && s.toLowerCase().includes(q)));
  if (category) tests.push((p) => p.metadata?.feeef?.categoryId === category);
  if (min !== undefined) tests.push((p) => p.price >= min);
  if (max !== undefined) tests.push((p) => p.price <= max);
  if (inStock !== undefined) tests.push((p) => p.stock > 0 === inStock);
  const dir = order === 'asc' ? 1 : -1;
  const sort =
    sortBy === 'price' ? (a: any, b: any) => dir * (a.price - b.price) : order === 'asc' ? (a: any, b: any) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) : undefined;
  const needsWalk = tests.length > 0 || sort !== undefined;
  return {
    status: statuses?.length === 1 ? statuses[0] : undefined,
    filter: needsWalk ? (p) => tests.every((t) => t(p)) : null,
    sort,
  };
}

// ── landing pages ──────────────────────────────────────────────────────────

const LANDING = 'id storeId productId name slug status content createdAt updatedAt';
const GET_LANDING = `query($storeId: ID!, $id: ID!) { productLandingPage(storeId: $storeId, id: $id) { ${LANDING} } }`;

/** Feeef's landing page: description, template and its schema and defaults live in Souk's `content`. */
const toLanding = (p: Record<string, any>) => ({
  id: p.id,
  name: p.name,
  description: p.content?.description ?? null,
  templateId: p.content?.templateId ?? null,
  schema: p.content?.schema ?? null,
  defaults: p.content?.defaults ?? null,
  productId: p.productId,
  storeId: p.storeId,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  slug: p.slug,
  status: p.status,
});

const landingSchema = obj({ id: str, name: nstr, description: nstr, templateId: nstr, schema: nobj, defaults: nobj, productId: nstr, storeId: str, createdAt: time, updatedAt: { type: ['string', 'null'] } });

const inContent = (key: string) => (v: unknown, out: Record<string, any>) => {
  out.content = { ...(out.content ?? {}), [key]: v };
};
const landingInput: FieldMap = {
  name: 'name',
  productId: 'productId',
  slug: 'slug',
  status: 'status',
  description: inContent('description'),
  templateId: inContent('templateId'),
  schema: inContent('schema'),
  defaults: inContent('defaults'),
  storeId: null,
};
const landingBody = input({ name: nstr, description: nstr, templateId: nstr, schema: nobj, defaults: nobj, productId: nstr, storeId: str, slug: str, status: oneOf('draft', 'published', 'archived') });

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/products',
    summary:
      "A store's products (store_id), newest first; status[] (published|draft|archived), q, category_id, min_price, max_price, in_stock, sort_by (createdAt|price) and sort_order",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ProductStatus) { products(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${PRODUCT} } nextCursor } }`,
    query: {
      ...PAGE_PARAMS,
      ...STORE_PARAMS,
      status: { type: 'list' },
      q: { type: 'string' },
      category_id: { type: 'string' },
      min_price: { type: 'string' },
      max_price: { type: 'string' },
      in_stock: { type: 'boolean' },
      sort_by: { type: 'string' },
      sort_order: { type: 'string' },
    },
    response: pageOf(productSchema),
    handle: async (call) => {
      const storeId = requireStore(call);
      const { status, filter, sort } = productFilter(call);
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, status }), { map: toProduct, filter, sort });
    },
  },
  {
    method: 'POST',
    path: '/products',
    summary: 'Create a product in the body’s storeId; Feeef fields Souk has no column for are kept in metadata.feeef and read back',
    operation: `mutation($storeId: ID!, $input: ProductCreateInput!) { createProduct(storeId: $storeId, input: $input) { ${PRODUCT} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: { ...input({ name: str, storeId: str, price: num, stock: int, sku: nstr, slug: str, status: oneOf('published', 'draft', 'archived'), metadata: anyObj }, ['name', 'price']), additionalProperties: true },
    response: productSchema,
    handle: async (call) => toProduct(await call.run({ storeId: requireStore(call, 'storeId'), input: mapInput(call.body, productInput) })),
  },
  {
    method: 'GET',
    path: '/products/{id}',
    summary: 'Show a product by id (?by=id), or by slug (?by=slug&store_id=)',
    operation: GET_PRODUCT,
    operations: [PRODUCT_BY_SLUG],
    query: PRODUCT_FIND_PARAMS,
    response: productSchema,
    handle: async (call) => toProduct(await findProduct(call)),
  },
  {
    method: 'PUT',
    path: '/products/{id}',
    summary: 'Change the given fields of a product (emits productUpdated)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: ProductUpdateInput!) { updateProduct(storeId: $storeId, id: $id, input: $input) { ${PRODUCT} } }`,
    operations: [GET_PRODUCT],
    query: STORE_PARAMS,
    body: { type: 'object', additionalProperties: true },
    response: productSchema,
    handle: async (call) => {
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['prod']);
      const { metadata, ...mapped } = mapInput(call.body, productInput);
      Object.assign(mapped, await metadataWrites(metadata, call.body.metadata !== undefined, () => located(id, call.run({ storeId, id }, { operation: GET_PRODUCT }))));
      return toProduct(await located(id, call.run({ storeId, id, input: mapped })));
    },
  },
  deleteRoute({
    path: '/products/{id}',
    summary: 'Delete a product (emits productDeleted)',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteProduct(storeId: $storeId, id: $id) }',
    prefixes: ['prod'],
  }),
  {
    method: 'GET',
    path: '/stores/{storeId}/products/{productId}/sells',
    summary: 'Units of the product sold (completed orders) per day over the last 8 days: {date: units}',
    operation: PRODUCT_LOR,
    query: LOR_PARAMS,
    response: { type: 'object', additionalProperties: { type: 'integer' } },
    handle: async (call) => countsByDay((await call.run({ storeId: call.params.storeId, productId: call.params.productId, ...lorArgs(call) })).lor, 'units'),
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/products/{productId}/report',
    summary: "The product's sales since its creation: sold units, revenue, average order value, units by month; views and likes are not counted by Souk (null)",
    operation: PRODUCT_LOR,
    operations: [GET_PRODUCT],
    response: obj({ views: { type: 'null' }, likes: { type: 'null' }, dislikes: { type: 'null' }, sold: int, revenue: num, conversionRate: { type: 'null' }, averageOrderValue: nnum, salesByDate: anyObj }),
    handle: async (call) => {
      const { storeId, productId } = call.params;
      const product = await call.run({ storeId, id: productId }, { operation: GET_PRODUCT });
      const { lor } = await call.run({ storeId, productId, from: String(product.createdAt).slice(0, 10), interval: 'month' });
      return {
        views: null,
        likes: null,
        dislikes: null,
        sold: lor.totals.units ?? 0,
        revenue: lor.totals.revenue,
        conversionRate: null,
        averageOrderValue: lor.totals.completed ? Math.round((lor.totals.revenue / lor.totals.completed) * 100) / 100 : null,
        salesByDate: countsByDay(lor, 'units'),
        completedOrders: lor.totals.completed,
      };
    },
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/products/{productId}/analytics/lor',
    summary: 'The lite orders report of the orders containing the product: {lor}',
    operation: PRODUCT_LOR,
    query: LOR_PARAMS,
    response: lorSchema,
    handle: async (call) => call.run({ storeId: call.params.storeId, productId: call.params.productId, ...lorArgs(call) }),
  },
  // Product landing pages.
  {
    method: 'GET',
    path: '/product_landing_pages',
    summary: "A store's product landing pages (store_id or storeId), newest first; productId filters",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $productId: ID) { productLandingPages(storeId: $storeId, limit: $limit, cursor: $cursor, productId: $productId) { data { ${LANDING} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...STORE_PARAMS, productId: { type: 'string' }, product_id: { type: 'string' } },
    response: pageOf(landingSchema),
    handle: async (call) => {
      const storeId = await storeOrOnly(call, 'store_id');
      const productId = call.query.first('productId', 'product_id');
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, productId }), { map: toLanding });
    },
  },
  {
    method: 'POST',
    path: '/product_landing_pages',
    summary: "Create a product landing page in the body's storeId (description, templateId, schema and defaults are kept in its content)",
    operation: `mutation($storeId: ID!, $input: ProductLandingPageCreateInput!) { createProductLandingPage(storeId: $storeId, input: $input) { ${LANDING} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: landingBody,
    response: landingSchema,
    handle: async (call) => {
      const mapped = mapInput(call.body, landingInput);
      if (mapped.name === null || mapped.name === undefined) throw invalid('name', 'is required');
      return toLanding(await call.run({ storeId: requireStore(call, 'storeId'), input: mapped }));
    },
  },
  findRoute({
    path: '/product_landing_pages/{id}',
    summary: 'Show a product landing page',
    operation: GET_LANDING,
    prefixes: ['plp'],
    map: toLanding,
    response: landingSchema,
  }),
  {
    method: 'PUT',
    path: '/product_landing_pages/{id}',
    summary: 'Change the given fields of a product landing page (content fields merge)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: ProductLandingPageUpdateInput!) { updateProductLandingPage(storeId: $storeId, id: $id, input: $input) { ${LANDING} } }`,
    operations: [GET_LANDING],
    query: STORE_PARAMS,
    body: landingBody,
    response: landingSchema,
    handle: async (call) => {
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['plp']);
      const mapped = mapInput(call.body, landingInput);
      if (mapped.name === null) delete mapped.name;
      if (mapped.content) {
        const current = await located(id, call.run({ storeId, id }, { operation: GET_LANDING }));
        mapped.content = { ...current.content, ...mapped.content };
      }
      return toLanding(await located(id, call.run({ storeId, id, input: mapped })));
    },
  },
  deleteRoute({
    path: '/product_landing_pages/{id}',
    summary: 'Delete a product landing page; its orders keep their landingPageId',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteProductLandingPage(storeId: $storeId, id: $id) }',
    prefixes: ['plp'],
  }),
  {
    method: 'GET',
    path: '/stores/{storeId}/product_landing_pages/{landingPageId}/analytics/lor',
    summary: 'The lite orders report of the orders with this landingPageId: {lor}',
    operation: LANDING_LOR,
    query: LOR_PARAMS,
    response: lorSchema,
    handle: async (call) => call.run({ storeId: call.params.storeId, landingPageId: call.params.landingPageId, ...lorArgs(call) }),
  },
];

