import type { EntityManager } from '@mikro-orm/postgresql';
import { requireActor, type Ctx, type Deps } from '../../core/context.js';
import { AppError, conflict, invalid, notConfigured } from '../../core/errors.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { enqueueInTransaction } from '../../events/queue.js';
import { newId } from '../../lib/ids.js';
import type { ConnectorProvider } from '../../providers/connector.js';
import { ShopifyConnector } from '../../providers/shopify/shopify.js';
import { StoreIntegration } from '../integrations/integration.entity.js';
import { bindToUserAgent, callbackUrl, createState, returnUrlOf, STATE_TTL_MS } from '../integrations/oauth-state.js';
import type { PlatformConnectorInstallType, PlatformConnectorType } from './connector.types.js';

/** A store has at most this many connectors, pending ones included (CONTRACT-2 §14). */
export const MAX_CONNECTORS = 5;
/** What the app asks the shop for: read its catalog and its orders. */
export const SHOPIFY_SCOPES = ['read_products', 'read_orders'] as const;
export const PRODUCT_TOPICS = ['products/create', 'products/update', 'products/delete'] as const;
export const ORDER_TOPICS = ['orders/create', 'orders/updated', 'orders/delete'] as const;
export const IMPORT_QUEUE = 'connector-import';

export interface ConnectorSync {
  products: boolean;
  orders: boolean;
}

export interface ConnectorRow {
  id: string;
  store_id: string;
  provider: string;
  shop_domain: string;
  status: 'pending' | 'active' | 'uninstalled' | 'error';
  sync: ConnectorSync;
  token_enc: string | null;
  last_error: string | null;
  last_event_at: Date | string | null;
  imported_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const sql = (ctx: Ctx) => ctx.em as EntityManager;
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** The platform's Shopify app from configuration; null when it is not configured. */
export function configuredConnector(deps: Deps): ConnectorProvider | null {
  const c = deps.config;
  if (!c.shopifyClientId || !c.shopifyClientSecret) return null;
  return new ShopifyConnector({ adminUrlTemplate: c.shopifyAdminUrlTemplate, clientId: c.shopifyClientId, clientSecret: c.shopifyClientSecret });
}

export function requireConnector(deps: Deps): ConnectorProvider {
  const p = configuredConnector(deps);
  if (!p) throw notConfigured('The platform connector (Shopify app)', 'SOUK_SHOPIFY_CLIENT_ID and SOUK_SHOPIFY_CLIENT_SECRET');
  return p;
}

export function connectorView(r: ConnectorRow): PlatformConnectorType {
  return {
    id: r.id,
    storeId: r.store_id,
    shopDomain: r.shop_domain,
    status: r.status,
    sync: { products: r.sync.products !== false, orders: r.sync.orders !== false },
    lastEventAt: iso(r.last_event_at),
    importedAt: iso(r.imported_at),
    lastError: r.last_error,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export async function findConnector(ctx: Ctx, storeId: string, id: string, opts: { lock?: boolean } = {}): Promise<ConnectorRow | null> {
  const [row] = await sql(ctx).execute<ConnectorRow[]>(`select * from connectors where id = ? and store_id = ?${opts.lock ? ' for update' : ''}`, [id, storeId]);
  return row ?? null;
}

export async function listConnectors(ctx: Ctx, storeId: string): Promise<PlatformConnectorType[]> {
  const rows = await sql(ctx).execute<ConnectorRow[]>('select * from connectors where store_id = ? order by id', [storeId]);
  return rows.map(connectorView);
}

/** The store's default for new connectors: the `platform-connector` integration's `sync`, else both. */
async function defaultSync(ctx: Ctx, storeId: string): Promise<ConnectorSync> {
  const row = await ctx.em.findOne(StoreIntegration, { storeId, key: 'platform-connector' });
  const sync = (row?.config.sync ?? {}) as Partial<ConnectorSync>;
  return { products: sync.products !== false, orders: sync.orders !== false };
}

async function assertShopFree(tx: TxCtx, storeId: string, shop: string): Promise<void> {
  const [other] = await sql(tx).execute(`select id from connectors where shop_domain = ? and status = 'active' and store_id <> ?`, [shop, storeId]);
  if (other) throw conflict(`The shop ${shop} is already connected to another store`);
}

/**
 * install-url / install: a pending connector for the shop (the store's existing one for that shop
 * is reused) and a single-use state bound to the shop. Pending connectors count toward the limit
 * while their install can still complete (10 minutes); a shop active in another store → 409.
 */
export async function installConnector(ctx: Ctx, storeId: string, shopInput: string, returnUrlInput: string | null | undefined): Promise<PlatformConnectorInstallType> {
  const provider = requireConnector(ctx.deps);
  const actor = requireActor(ctx);
  const shop = provider.normalizeShop(shopInput);
  if (!shop) throw invalid('shop', 'must be a Shopify shop domain: <name>.myshopify.com (letters, digits and hyphens)');
  const returnUrl = returnUrlOf(ctx.deps.config, returnUrlInput);
  const { connectorId, state } = await transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    await assertShopFree(tx, storeId, shop);
    const now = new Date();
    const [existing] = await sql(tx).execute<ConnectorRow[]>('select * from connectors where store_id = ? and shop_domain = ? for update', [storeId, shop]);
    const counted = existing && (existing.status === 'active' || existing.status === 'error' || (existing.status === 'pending' && new Date(existing.updated_at).getTime() > now.getTime() - STATE_TTL_MS));
    if (!counted) {
      const [{ n }] = await sql(tx).execute<Array<{ n: number }>>(
        `select count(*)::int as n from connectors where store_id = ? and (status in ('active', 'error') or (status = 'pending' and updated_at > ?))`,
        [storeId, new Date(now.getTime() - STATE_TTL_MS)],
      );
      if (n >= MAX_CONNECTORS) throw new AppError('LIMIT_EXCEEDED', `A store has at most ${MAX_CONNECTORS} connectors, pending installs included`);
    }
    let id: string;
    if (existing) {
      id = existing.id;
      // An active connector stays active while it is installed again (new scopes); others wait for the callback.
      await sql(tx).execute(`update connectors set status = case when status = 'active' then status else 'pending' end, updated_at = ? where id = ?`, [now, id]);
    } else {
      id = newId('con');
      await sql(tx).execute(
        `insert into connectors (id, store_id, provider, shop_domain, status, sync, created_at, updated_at) values (?, ?, ?, ?, 'pending', ?::jsonb, ?, ?)`,
        [id, storeId, provider.provider, shop, JSON.stringify(await defaultSync(tx, storeId)), now, now],
      );
    }
    const created = await createState(tx, { provider: 'shopify', storeId, userId: actor.userId, connectorId: id, shop, returnUrl }, now);
    return { connectorId: id, state: created.state };
  });
  bindToUserAgent(ctx, state);
  return { url: provider.installUrl({ shop, state, redirectUri: callbackUrl(ctx.deps.config.publicUrl), scopes: SHOPIFY_SCOPES }), connectorId, state };
}

/** The webhook address a connector's shop posts to. */
export const webhookAddress = (publicUrl: string, storeId: string, connectorId: string) =>
  `${publicUrl.replace(/\/+$/, '')}/v1/integrations/connectors/platform/webhook/${storeId}/${connectorId}`;

export function topicsOf(sync: ConnectorSync): string[] {
  return [...(sync.products ? PRODUCT_TOPICS : []), ...(sync.orders ? ORDER_TOPICS : []), 'app/uninstalled'];
}

/** Queues the first import in the caller's transaction; the worker runs it after commit. */
export async function enqueueImport(tx: TxCtx, connectorId: string): Promise<void> {
  await enqueueInTransaction(tx, IMPORT_QUEUE, [{ data: { connectorId } }]);
}
