import type { Deps } from '../../core/context.js';
import { runsWork, type Module } from '../../core/module.js';
import { transaction } from '../../core/tx.js';
import { CarrierError, type CarrierParcelState } from '../../providers/carrier.js';
import { loadIntegration, markIntegration } from '../integrations/integration.access.js';
import { CARRIER_PROVIDERS } from '../integrations/integration.kinds.js';
import { handleOf } from './carrier.client.js';
import { systemContext } from '../../core/context.js';
import { deleteCarrierWebhook } from './carrier.service.js';
import { applyNews, newsOf } from './parcel.service.js';

export const CARRIER_POLL_QUEUE = 'carrier-poll';
/** Every quarter hour, on whichever replica claims the tick. */
export const POLL_CRON = '*/15 * * * *';
/** A parcel the carrier has said nothing about for this long is asked about. */
export const QUIET_MS = 6 * 3600_000;
/** The same for carriers that push nothing: polling is all Souk hears from them. */
export const POLLED_QUIET_MS = 3600_000;
const POLLED_PROVIDERS = Object.entries(CARRIER_PROVIDERS)
  .filter(([, p]) => !p.pushes)
  .map(([name]) => name);
const BATCH = 500;
const LEASE_MS = 60_000;

interface QuietRow {
  id: string;
  store_id: string;
  order_id: string;
  tracking: string | null;
  status: string;
}

/**
 * Asks the carrier about parcels with no news for 6 hours (a lost webhook heals here; an hour for
 * carriers that push nothing) and about
 * `creating` parcels whose creation call never answered: found, they are adopted; not found, the
 * creation never happened and the row goes, freeing the order.
 */
export async function pollQuietParcels(deps: Deps, now = new Date()): Promise<{ polled: number; changed: number }> {
  const ctx = systemContext(deps, 'carrier-poller');
  const rows = await ctx.em.execute<QuietRow[]>(
    `select id, store_id, order_id, tracking, status from parcels
      where status not in ('delivered', 'returned', 'cancelled') and (claimed_until is null or claimed_until < ?)
        and checked_at < (case when provider in (?) then ?::timestamptz else ?::timestamptz end)
      order by checked_at limit ?`,
    [now, POLLED_PROVIDERS, new Date(now.getTime() - POLLED_QUIET_MS), new Date(now.getTime() - QUIET_MS), BATCH],
  );
  const byStore = new Map<string, QuietRow[]>();
  for (const r of rows) byStore.set(r.store_id, [...(byStore.get(r.store_id) ?? []), r]);
  let changed = 0;
  for (const [storeId, parcels] of byStore) {
    const touch = () => ctx.em.execute('update parcels set checked_at = ? where id in (?)', [now, parcels.map((p) => p.id)]);
    const handle = handleOf(deps, storeId, await loadIntegration(ctx, storeId, 'carrier'));
    if (!handle) {
      // No carrier to ask: look again in six hours.
      await touch();
      continue;
    }
    // A carrier that cannot look parcels up by order leaves lost creations to the merchant.
    const creating = handle.adapter.findsByOrderId ? parcels.filter((p) => p.status === 'creating') : [];
    const claimed = creating.length
      ? await ctx.em.execute<Array<{ id: string; order_id: string }>>(
          `update parcels set claimed_until = ? where id in (?) and status = 'creating' and (claimed_until is null or claimed_until < ?) returning id, order_id`,
          [new Date(now.getTime() + LEASE_MS), creating.map((p) => p.id), now],
        )
      : [];
    const trackings = parcels.filter((p) => p.tracking).map((p) => p.tracking!);
    let tracked: CarrierParcelState[];
    let adopted: CarrierParcelState[];
    try {
      tracked = trackings.length ? await handle.adapter.track({ trackings }) : [];
      adopted = claimed.length ? await handle.adapter.track({ orderIds: claimed.map((c) => c.order_id) }) : [];
    } catch (err) {
      if (claimed.length) await ctx.em.execute('update parcels set claimed_until = null where id in (?)', [claimed.map((c) => c.id)]);
      if (err instanceof CarrierError && err.kind === 'auth') await markIntegration(ctx, storeId, 'carrier', { ok: false, error: err.message });
      deps.log.warn({ storeId, err: (err as Error).message }, 'carrier poll failed');
      continue;
    }
    await transaction(ctx, async (tx) => {
      for (const state of tracked) {
        if ((await applyNews(tx, handle, newsOf(state), 'poll')) === 'applied') changed++;
      }
      for (const c of claimed) {
        const state = adopted.find((s) => s.orderId === c.order_id);
        if (state) {
          if ((await applyNews(tx, handle, { ...newsOf(state), orderId: c.order_id }, 'poll')) === 'applied') changed++;
        } else {
          await tx.em.execute(`delete from parcels where id = ? and status = 'creating'`, [c.id]);
        }
      }
      await tx.em.execute('update parcels set checked_at = ?, claimed_until = null where id in (?)', [now, parcels.map((p) => p.id)]);
    });
  }
  return { polled: rows.length, changed };
}

/** The carrier subsystem's background work and its part in deleting the integration. */
export const carrierModule: Module = {
  name: 'carrier',
  start: async (deps) => {
    const { boss } = deps.queue;
    await boss.createQueue(CARRIER_POLL_QUEUE, { expireInSeconds: 900, retryLimit: 1, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
    // Stored in the database: every replica scheduling it keeps one schedule, one worker per tick.
    await boss.schedule(CARRIER_POLL_QUEUE, POLL_CRON);
    if (!runsWork(deps)) return;
    const workerId = await boss.work(CARRIER_POLL_QUEUE, { pollingIntervalSeconds: 30 }, async () => {
      const { polled, changed } = await pollQuietParcels(deps);
      if (polled) deps.log.info({ polled, changed }, 'polled quiet parcels');
    });
    return async () => {
      await boss.offWork(CARRIER_POLL_QUEUE, { id: workerId, wait: true });
    };
  },
  // Yalidine has no API to revoke a token or a webhook: Souk forgets its end of the webhook.
  onIntegrationDeleted: async (ctx, integration) => {
    if (integration.key === 'carrier') await deleteCarrierWebhook(ctx, integration.storeId);
  },
};
