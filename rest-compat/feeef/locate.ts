import { requireActor, type Ctx } from '../../src/core/context.js';
import { membershipOf } from '../../src/core/policy.js';
import { AppError, invalid } from '../../src/core/errors.js';
import type { Call } from './route.js';

/**
 * Feeef addresses resources flat (`/products/{id}`); Souk's fields take the store. The store
 * is read from the query (`store_id`, `storeId`), the body (`storeId`, `projectId`), or, for
 * a resource id, from the resource's own row. That lookup only routes the request: the GraphQL
 * field then run with the store checks membership and permission as on /v1, and a resource in
 * a store the caller is not a member of answers the same 404 as one that does not exist.
 */

/** Entities by id prefix; the table and column names come from the ORM's metadata. */
const OWNERS: Record<string, { entity: string; what: string }> = {
  prod: { entity: 'Product', what: 'product' },
  ord: { entity: 'Order', what: 'order' },
  plp: { entity: 'ProductLandingPage', what: 'product landing page' },
  stt: { entity: 'StoreTemplate', what: 'store template' },
  tpc: { entity: 'TemplateComponent', what: 'template component' },
  ipt: { entity: 'ImagePromptTemplate', what: 'image prompt template' },
  shp: { entity: 'ShippingPrice', what: 'shipping price' },
  shm: { entity: 'ShippingMethod', what: 'shipping method' },
  promo: { entity: 'Promo', what: 'promo' },
  whs: { entity: 'Warehouse', what: 'warehouse' },
  ine: { entity: 'InventoryMovement', what: 'inventory movement' },
  po: { entity: 'PurchaseOrder', what: 'purchase order' },
  sup: { entity: 'SupplierRecord', what: 'supplier' },
  prc: { entity: 'PurchaseReceipt', what: 'purchase receipt' },
};

const prefixOf = (id: string) => /^([a-z]+)_/.exec(id)?.[1] ?? '';

/** The NOT_FOUND a located resource answers, whoever's store it is in. */
export const missing = (id: string) => new AppError('NOT_FOUND', `No such ${OWNERS[prefixOf(id)]?.what ?? (prefixOf(id) === 'st' ? 'store' : 'resource')}`);

/**
 * The store of a resource by its id; undefined for a resource that belongs to no store
 * (a platform prompt template), NOT_FOUND when there is no such row.
 */
export async function storeOfResource(ctx: Ctx, id: string, prefixes: string[]): Promise<string | undefined> {
  const prefix = prefixOf(id);
  if (!prefixes.includes(prefix) || id.length > 64) throw missing(id);
  const meta = ctx.em.getMetadata().find(OWNERS[prefix].entity);
  if (!meta) throw new Error(`no entity ${OWNERS[prefix].entity}`);
  const column = (name: string) => meta.properties[name].fieldNames[0];
  const rows = await ctx.em.getConnection().execute<Array<{ store_id: string | null }>>(
    `select ${column('storeId')} as store_id from ${meta.tableName} where ${column('id')} = ?`,
    [id],
  );
  if (!rows.length) throw missing(id);
  return rows[0].store_id ?? undefined;
}

/** The store a flat request names: query first, then the body; undefined when none does. */
export function namedStore(call: Call, body: string[] = ['storeId', 'store_id', 'projectId']): string | undefined {
  const fromQuery = call.query.first(...['store_id', 'storeId', 'projectId'].filter((k) => call.query.has(k)));
  if (fromQuery) return fromQuery;
  for (const key of body) {
    const v = call.body[key];
    if (typeof v === 'string' && v !== '') return v;
    if (v !== undefined && v !== null && typeof v !== 'string') throw invalid(key, 'must be a string');
  }
  return undefined;
}

/** The store a flat request names, or 400 naming the parameter Feeef's SDK uses. */
export function requireStore(call: Call, param = 'store_id', body?: string[]): string {
  const id = namedStore(call, body);
  if (!id) throw invalid(param, 'is required: the store (Souk keeps every resource in a store)');
  return id;
}

/**
 * The caller acts in the store: signed in (401 otherwise, whatever the id), and a member (else
 * the resource answers as missing, as an unknown id does). Decided before a body is read, so an
 * answer never tells another store's resource from none (as on /v1).
 */
export async function requireMember(call: Call, storeId: string, id: string): Promise<string> {
  requireActor(call.ctx);
  if (!(await membershipOf(call.ctx, storeId))) throw missing(id);
  return storeId;
}

/** The store for a resource id the caller must be a member of: the one the request names, else the resource's own. */
export async function storeFor(call: Call, id: string, prefixes: string[]): Promise<string> {
  requireActor(call.ctx);
  const named = namedStore(call);
  const found = named ?? (await storeOfResource(call.ctx, id, prefixes));
  if (!found) throw missing(id);
  return requireMember(call, found, id);
}

/**
 * The store of a list or create the SDK sends without one (several of its methods drop it): the
 * one named, else the caller's only store. Signed out → 401; no store, or several → 400 at `param`.
 */
export async function storeOrOnly(call: Call, param = 'storeId', body?: string[]): Promise<string> {
  const named = namedStore(call, body);
  if (named) return named;
  const actor = requireActor(call.ctx);
  const meta = call.ctx.em.getMetadata().find('Membership');
  if (!meta) throw new Error('no entity Membership');
  const column = (name: string) => meta.properties[name].fieldNames[0];
  const rows = await call.ctx.em.getConnection().execute<Array<{ store_id: string }>>(
    `select ${column('storeId')} as store_id from ${meta.tableName} where ${column('userId')} = ? order by 1 limit 2`,
    [actor.userId],
  );
  if (rows.length === 1) return rows[0].store_id;
  throw invalid(param, rows.length ? 'is required: the caller belongs to several stores (name the one meant)' : 'is required: the caller belongs to no store');
}
