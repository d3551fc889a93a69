import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../core/errors.js';
import { decimalTextToMinor, toMajor } from '../../core/money.js';
import type { TxCtx } from '../../core/tx.js';
import { slugify } from '../../lib/slug.js';
import type { ConnectorEvent, RemoteOrder, RemoteProduct } from '../../providers/connector.js';
import { deleteOrder } from '../orders/order.service.js';
import { upsertImportedOrder } from '../orders/order.import.js';
import { createProduct, deleteProduct, updateProduct } from '../products/product.service.js';
import { storeCurrency } from '../stores/currency.js';
import type { ConnectorRow } from './connector.service.js';

/**
 * Applying a remote shop's records (webhooks and the first import): upserts keyed by
 * (connector, remote id), an older remote `updated_at` than the one applied is skipped, and every
 * write carries `metadata.connector {integrationSource: "inbound", ...}` so no webhook echoes it.
 * Callers hold the store row lock (one writer per store at a time).
 */

type Resource = 'product' | 'order';
export type Outcome = 'created' | 'updated' | 'stale' | 'deleted' | 'ignored' | 'refused';

interface Link {
  local_id: string;
  remote_updated_at: Date | string | null;
}

const sql = (tx: TxCtx) => tx.em as EntityManager;

async function linkOf(tx: TxCtx, connectorId: string, resource: Resource, remoteId: string): Promise<Link | null> {
  const [row] = await sql(tx).execute<Link[]>(
    'select local_id, remote_updated_at from connector_links where connector_id = ? and resource = ? and remote_id = ? for update',
    [connectorId, resource, remoteId],
  );
  return row ?? null;
}

async function saveLink(tx: TxCtx, connectorId: string, resource: Resource, remoteId: string, localId: string, updatedAt: Date | null): Promise<void> {
  await sql(tx).execute(
    `insert into connector_links (connector_id, resource, remote_id, local_id, remote_updated_at) values (?, ?, ?, ?, ?)
     on conflict (connector_id, resource, remote_id) do update set local_id = excluded.local_id, remote_updated_at = excluded.remote_updated_at`,
    [connectorId, resource, remoteId, localId, updatedAt],
  );
}

/** Not newer than what was applied: an out-of-order or repeated update changes nothing. */
const isStale = (link: Link | null, updatedAt: Date | null) =>
  !!link?.remote_updated_at && !!updatedAt && updatedAt.getTime() <= new Date(link.remote_updated_at).getTime();

function marker(connector: ConnectorRow, remoteId: string, updatedAt: Date | null) {
  return { integrationSource: 'inbound', connectorId: connector.id, remoteId, remoteUpdatedAt: updatedAt ? updatedAt.toISOString() : null };
}

/** The record's metadata with the connector block replaced; anything else a merchant added stays. */
const withMarker = (metadata: Record<string, unknown> | null | undefined, block: ReturnType<typeof marker>) => ({ ...(metadata ?? {}), connector: block });

async function freeSlug(tx: TxCtx, storeId: string, handle: string | null): Promise<string | undefined> {
  const slug = handle ? slugify(handle) : '';
  if (!slug) return undefined;
  const [taken] = await sql(tx).execute('select 1 from products where store_id = ? and slug = ?', [storeId, slug]);
  return taken ? undefined : slug;
}

export async function applyRemoteProduct(tx: TxCtx, connector: ConnectorRow, p: RemoteProduct): Promise<Outcome> {
  const storeId = connector.store_id;
  const link = await linkOf(tx, connector.id, 'product', p.remoteId);
  if (isStale(link, p.updatedAt)) return 'stale';
  const currency = await storeCurrency(tx, storeId);
  const price = toMajor(Math.max(0, decimalTextToMinor(p.price ?? '0', currency) ?? 0), currency);
  const block = marker(connector, p.remoteId, p.updatedAt);
  const fields = {
    name: p.name.slice(0, 200),
    price,
    sku: p.sku ? p.sku.slice(0, 100) : null,
    stock: Math.max(0, Math.min(p.stock, 1e9)),
    allowBackorder: p.allowBackorder,
    status: p.status,
  };
  const [existing] = link ? await sql(tx).execute<Array<{ metadata: Record<string, unknown> }>>('select metadata from products where id = ? and store_id = ?', [link.local_id, storeId]) : [];
  let localId: string;
  if (link && existing) {
    localId = link.local_id;
    await updateProduct(tx, storeId, localId, { ...fields, metadata: withMarker(existing.metadata, block) });
  } else {
    localId = (await createProduct(tx, storeId, { ...fields, slug: await freeSlug(tx, storeId, p.handle), metadata: { connector: block } })).id;
  }
  await saveLink(tx, connector.id, 'product', p.remoteId, localId, p.updatedAt);
  return link && existing ? 'updated' : 'created';
}

/**
 * Remote orders name no local product: the shop keeps its own stock (mirrored by product
 * updates), so an imported order never moves Souk stock. A remote cancel or fulfilment moves the
 * order to the store's first status of that kind; an open remote order keeps its local status.
 * The order domain applies the API's limits: an order it refuses is skipped, and the refusal
 * becomes the connector's `lastError`.
 */
export async function applyRemoteOrder(tx: TxCtx, connector: ConnectorRow, o: RemoteOrder): Promise<Outcome> {
  const link = await linkOf(tx, connector.id, 'order', o.remoteId);
  if (isStale(link, o.updatedAt)) return 'stale';
  let written: { id: string; created: boolean };
  try {
    written = await upsertImportedOrder(tx, connector.store_id, link?.local_id ?? null, {
      customerName: o.customerName,
      customerPhone: o.customerPhone,
      currency: o.currency,
      items: o.items,
      shippingCost: o.shippingCost,
      discount: o.discount,
      shippingAddress: o.shippingAddress,
      paymentStatus: o.paymentStatus,
      kind: o.kind,
      marker: marker(connector, o.remoteId, o.updatedAt),
    });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'VALIDATION_FAILED')) throw err;
    const message = `Order ${o.name ?? o.remoteId} was not imported: ${err.message}`;
    await sql(tx).execute('update connectors set last_error = ?, updated_at = ? where id = ?', [message.slice(0, 500), new Date(), connector.id]);
    return 'refused';
  }
  await saveLink(tx, connector.id, 'order', o.remoteId, written.id, o.updatedAt);
  return written.created ? 'created' : 'updated';
}

/** A remote delete removes the local record it created (if the merchant has not already). */
async function removeRemote(tx: TxCtx, connector: ConnectorRow, resource: Resource, remoteId: string): Promise<Outcome> {
  const link = await linkOf(tx, connector.id, resource, remoteId);
  if (!link) return 'ignored';
  try {
    if (resource === 'product') await deleteProduct(tx, connector.store_id, link.local_id, { inbound: true });
    else await deleteOrder(tx, connector.store_id, link.local_id, { inbound: true });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
  }
  await sql(tx).execute('delete from connector_links where connector_id = ? and resource = ? and remote_id = ?', [connector.id, resource, remoteId]);
  return 'deleted';
}

/** One verified webhook, applied in the caller's transaction; topics the connector does not sync are ignored. */
export async function applyConnectorEvent(tx: TxCtx, connector: ConnectorRow, e: ConnectorEvent): Promise<Outcome> {
  const sync = connector.sync;
  switch (e.type) {
    case 'product':
      return sync.products !== false ? applyRemoteProduct(tx, connector, e.product) : 'ignored';
    case 'product_deleted':
      return sync.products !== false ? removeRemote(tx, connector, 'product', e.remoteId) : 'ignored';
    case 'order':
      return sync.orders !== false ? applyRemoteOrder(tx, connector, e.order) : 'ignored';
    case 'order_deleted':
      return sync.orders !== false ? removeRemote(tx, connector, 'order', e.remoteId) : 'ignored';
    case 'uninstalled':
      // The shop removed the app: its token is dead; the records it brought stay.
      await sql(tx).execute(`update connectors set status = 'uninstalled', token_enc = null, updated_at = ? where id = ?`, [new Date(), connector.id]);
      return 'updated';
    default:
      return 'ignored';
  }
}
