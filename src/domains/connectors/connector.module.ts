import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx, Deps } from '../../core/context.js';
import { runsWork, type Module } from '../../core/module.js';
import { decryptSecret } from '../../core/secrets.js';
import { lockStore, transaction } from '../../core/tx.js';
import { ConnectorError, type RemoteOrder, type RemoteProduct } from '../../providers/connector.js';
import { systemContext } from '../../core/context.js';
import { pruneStates } from '../integrations/oauth-state.js';
import { configuredConnector, findConnector, IMPORT_QUEUE, type ConnectorRow } from './connector.service.js';
import { applyRemoteOrder, applyRemoteProduct, type Outcome } from './connector.sync.js';

export const MAINTENANCE_QUEUE = 'connector-maintenance';
/** Hourly: spent OAuth states and old provider event ids go. */
const MAINTENANCE_CRON = '17 * * * *';
/** Provider event ids are kept this long for deduplication (Shopify retries for 48 hours). */
const EVENT_RETENTION_MS = 30 * 86_400_000;
/** Pages read per resource in one import (250 records each). */
const MAX_PAGES = 400;

interface ImportJob {
  connectorId: string;
}

const sql = (ctx: Ctx) => ctx.em as EntityManager;

/** The connector's record, usable for an import: active with a token; null otherwise. */
async function importable(ctx: Ctx, connectorId: string): Promise<ConnectorRow | null> {
  const [row] = await sql(ctx).execute<ConnectorRow[]>(`select * from connectors where id = ? and status = 'active' and token_enc is not null`, [connectorId]);
  return row ?? null;
}

/**
 * The first import: the shop's products, then its orders, a page per transaction through the same
 * upserts as webhooks (so a webhook newer than the page wins, and a repeated import changes
 * nothing). A refused token marks the connector `error`; an outage is retried by the queue.
 */
export async function importConnector(deps: Deps, connectorId: string): Promise<{ products: number; orders: number }> {
  const ctx = systemContext(deps, 'connector-import');
  const provider = configuredConnector(deps);
  const connector = await importable(ctx, connectorId);
  if (!provider || !connector) return { products: 0, orders: 0 };
  const token = decryptSecret(deps.config.secretKey, connector.token_enc!);
  const counts = { products: 0, orders: 0 };
  // A record the order domain refused leaves its reason in lastError (the import goes on).
  let refused = false;
  const run = async <T>(fetch: (cursor: string | null) => Promise<{ data: T[]; nextCursor: string | null }>, apply: (tx: Parameters<typeof applyRemoteProduct>[0], c: ConnectorRow, r: T) => Promise<Outcome>) => {
    let cursor: string | null = null;
    let n = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res: { data: T[]; nextCursor: string | null } = await fetch(cursor);
      await transaction(ctx, async (tx) => {
        await lockStore(tx, connector.store_id);
        const current = await findConnector(tx, connector.store_id, connector.id, { lock: true });
        if (!current || current.status !== 'active') return;
        for (const r of res.data) if ((await apply(tx, current, r)) === 'refused') refused = true;
      });
      n += res.data.length;
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
    return n;
  };
  try {
    if (connector.sync.products !== false) counts.products = await run<RemoteProduct>((c) => provider.products(connector.shop_domain, token, c), applyRemoteProduct);
    if (connector.sync.orders !== false) counts.orders = await run<RemoteOrder>((c) => provider.orders(connector.shop_domain, token, c), applyRemoteOrder);
  } catch (err) {
    if (err instanceof ConnectorError && (err.kind === 'auth' || err.kind === 'rejected')) {
      await sql(ctx).execute(`update connectors set status = 'error', last_error = ?, updated_at = ? where id = ?`, [err.message.slice(0, 500), new Date(), connectorId]);
      return counts;
    }
    throw err;
  }
  await sql(ctx).execute('update connectors set imported_at = ?, last_error = case when ? then last_error end where id = ?', [new Date(), refused, connectorId]);
  return counts;
}

/** Uninstalls every connector of a store at its shop (best effort) and forgets their tokens. */
async function uninstallAll(ctx: Ctx, storeId: string): Promise<void> {
  const provider = configuredConnector(ctx.deps);
  const rows = await sql(ctx).execute<ConnectorRow[]>(`select * from connectors where store_id = ? and token_enc is not null`, [storeId]);
  for (const r of rows) {
    try {
      await provider?.revoke(r.shop_domain, decryptSecret(ctx.deps.config.secretKey, r.token_enc!));
    } catch (err) {
      ctx.deps.log.warn({ storeId, connectorId: r.id, err: (err as Error).message }, 'connector not uninstalled at its shop');
    }
  }
  await sql(ctx).execute(`update connectors set status = 'uninstalled', token_enc = null, updated_at = ? where store_id = ? and status <> 'uninstalled'`, [new Date(), storeId]);
}

/** The connector's background half: first imports, and the hourly clean-up of states and event ids. */
export const connectorModule: Module = {
  name: 'connectors',
  start: async (deps) => {
    const { boss } = deps.queue;
    // Created at start, outside any transaction (embedded mode has one database session).
    await boss.createQueue(IMPORT_QUEUE, { expireInSeconds: 3600, retryLimit: 5, retryDelay: 30, retryBackoff: true, retryDelayMax: 1800, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
    await boss.createQueue(MAINTENANCE_QUEUE, { expireInSeconds: 600, retryLimit: 0, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
    await boss.schedule(MAINTENANCE_QUEUE, MAINTENANCE_CRON);
    if (!runsWork(deps)) return;
    const importer = await boss.work<ImportJob>(IMPORT_QUEUE, { pollingIntervalSeconds: 2, batchSize: 1 }, async ([job]) => {
      const counts = await importConnector(deps, job.data.connectorId);
      deps.log.info({ connectorId: job.data.connectorId, ...counts }, 'connector import finished');
    });
    deps.queue.addLocalWorker(IMPORT_QUEUE, importer);
    const maintenance = await boss.work(MAINTENANCE_QUEUE, { pollingIntervalSeconds: 30 }, async () => {
      const ctx = systemContext(deps, 'connector-maintenance');
      await pruneStates(ctx);
      await sql(ctx).execute('delete from inbound_events where received_at < ?', [new Date(Date.now() - EVENT_RETENTION_MS)]);
    });
    return async () => {
      await boss.offWork(IMPORT_QUEUE, { id: importer, wait: true });
      await boss.offWork(MAINTENANCE_QUEUE, { id: maintenance, wait: true });
    };
  },
  // Deleting the registry's `platform-connector` integration removes the app from every connected shop.
  onIntegrationDeleted: async (ctx, integration) => {
    if (integration.key === 'platform-connector') await uninstallAll(ctx, integration.storeId);
  },
};
