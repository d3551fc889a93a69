import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import { enqueueInTransaction } from '../../events/queue.js';
import { AdsError, type ConversionEvent } from '../../providers/ads.js';
import { loadIntegration } from '../integrations/integration.access.js';
import { systemContext } from '../../core/context.js';
import type { OrderWrite } from '../orders/order.hooks.js';
import type { OrderType } from '../orders/order.types.js';
import { ADS_KEY, connectionRow, connectionToken, markExpired, metaProvider, settingsOf, type Trigger } from './ads.service.js';

/**
 * Conversions API (CONTRACT-2 §14): an order write that reaches a trigger (created, confirmed,
 * paid, delivered) named in the store's event map queues one event in the write's own
 * transaction, keyed `{orderId}:{trigger}` so it exists once whatever happens later; a worker
 * sends it after commit and retries with backoff for up to 7 days.
 */

export const CAPI_QUEUE = 'ads-conversions';
/** Retries back off from 30 s to at most an hour apart; the job gives up 7 days after the write. */
export const RETRY_DELAY_S = 30;
export const RETRY_DELAY_MAX_S = 3600;
export const GIVE_UP_MS = 7 * 86_400_000;
/** Far more retries than 7 days hold at an hour apart: the age check ends them. */
const RETRY_LIMIT = 400;
/** How often each process re-reads which stores send conversions (a change made on another replica). */
export const DIRECTORY_REFRESH_MS = 15_000;

interface StoreCapi {
  eventMap: Record<string, string>;
}

/**
 * Which stores send conversions, in memory: the order write path asks here, so a store without the
 * Conversions API costs no query. A change in this process is read at once; other replicas
 * re-read every DIRECTORY_REFRESH_MS.
 */
export class ConversionDirectory {
  private stores = new Map<string, StoreCapi>();

  constructor(private readonly deps: Deps) {}

  get(storeId: string): StoreCapi | undefined {
    return this.stores.get(storeId);
  }

  private query(storeId?: string) {
    const em = this.deps.orm.em.fork() as EntityManager;
    return em.execute<Array<{ store_id: string; config: Record<string, unknown> }>>(
      `select store_id, config from store_integrations
        where key = ? and enabled and config->'conversionsApi'->'enabled' = 'true'::jsonb and coalesce(config->>'pixelId', '') <> ''${storeId ? ' and store_id = ?' : ''}`,
      storeId ? [ADS_KEY, storeId] : [ADS_KEY],
    );
  }

  async reload(): Promise<void> {
    const rows = await this.query();
    this.stores = new Map(rows.map((r) => [r.store_id, { eventMap: settingsOf(r.config).conversionsApi.eventMap }]));
  }

  async reloadStore(storeId: string): Promise<void> {
    const [row] = await this.query(storeId);
    if (row) this.stores.set(storeId, { eventMap: settingsOf(row.config).conversionsApi.eventMap });
    else this.stores.delete(storeId);
  }
}

const sha = (v: string) => createHash('sha256').update(v, 'utf8').digest('hex');

/** Meta's phone rule: digits only, with the country code; Algerian numbers become `213…`. */
export function normalizePhone(raw: string): string | null {
  let d = raw.replace(/\D/g, '');
  if (d.startsWith('00')) d = d.slice(2);
  if (d.startsWith('0') && d.length === 10) d = `213${d.slice(1)}`;
  else if (d.length === 9 && /^[567]/.test(d)) d = `213${d}`;
  return d.length >= 8 && d.length <= 15 ? d : null;
}

/** Names: trimmed, lower case, no punctuation; the first word is the first name. */
function names(full: string): { fn: string | null; ln: string | null } {
  const words = full.normalize('NFC').toLowerCase().replace(/[\p{P}\p{S}]/gu, ' ').split(/\s+/).filter(Boolean);
  return { fn: words[0] ?? null, ln: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** A city: lower case, letters only (no spaces or punctuation). */
const city = (v: string) => v.normalize('NFC').toLowerCase().replace(/[^\p{L}]/gu, '') || null;

/** `user_data` with every value SHA-256 hashed after Meta's normalization. */
export function userData(order: Pick<OrderType, 'customerName' | 'customerPhone' | 'shippingAddress'>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const put = (key: string, value: string | null) => {
    if (value) out[key] = [sha(value)];
  };
  put('ph', order.customerPhone ? normalizePhone(order.customerPhone) : null);
  const n = names(order.customerName ?? '');
  put('fn', n.fn);
  put('ln', n.ln);
  put('ct', order.shippingAddress?.communeName ? city(order.shippingAddress.communeName) : null);
  put('country', (order.shippingAddress?.country ?? 'DZ').toLowerCase());
  return out;
}

export function conversionEvent(order: OrderType, trigger: Trigger, eventName: string, at: Date): ConversionEvent {
  const units = order.items.reduce((n, i) => n + i.quantity, 0);
  return {
    event_name: eventName,
    event_time: Math.floor(at.getTime() / 1000),
    event_id: `${order.id}:${trigger}`,
    action_source: 'system_generated',
    user_data: userData(order),
    custom_data: {
      // The order's own currency: Meta converts to the ad account's.
      currency: order.currency,
      value: order.total,
      order_id: order.id,
      content_type: 'product',
      contents: order.items.map((i) => ({ id: i.productId ?? i.name, quantity: i.quantity, item_price: i.price })),
      num_items: units,
    },
  };
}

/** The triggers an order write reaches: creation, the first confirmation, becoming paid, reaching a fulfilled status. */
function reached(w: OrderWrite): Trigger[] {
  if (!w.previous) return ['created'];
  const out: Trigger[] = [];
  if (!w.previous.confirmedAt && w.order.confirmedAt) out.push('confirmed');
  if (w.previous.paymentStatus !== 'paid' && w.order.paymentStatus === 'paid') out.push('paid');
  // The order domain names the new status's kind whenever a write changes the status.
  if (w.previous.statusId !== w.order.statusId && w.statusKind === 'fulfilled') out.push('delivered');
  return out;
}

/** Each running service's directory, kept by the ads module. */
export const conversionDirectories = new WeakMap<Deps, ConversionDirectory>();

/**
 * The order write hook: nothing (no query) for a store without the Conversions API or for an
 * inbound write; otherwise one row per new `{orderId}:{trigger}` and its job, in the write's
 * transaction.
 */
export async function queueConversions(tx: TxCtx, w: OrderWrite): Promise<void> {
  const capi = conversionDirectories.get(tx.deps)?.get(w.storeId);
  if (!capi || w.inbound) return;
  const triggers = reached(w).filter((t) => capi.eventMap[t]);
  if (!triggers.length) return;
  const now = new Date();
  const em = tx.em as EntityManager;
  const fresh: string[] = [];
  for (const trigger of triggers) {
    const event = conversionEvent(w.order, trigger, capi.eventMap[trigger], now);
    const [row] = await em.execute<Array<{ event_id: string }>>(
      `insert into ads_conversions (store_id, event_id, order_id, trigger, event_name, event, status, created_at) values (?, ?, ?, ?, ?, ?::jsonb, 'queued', ?)
       on conflict (store_id, event_id) do nothing returning event_id`,
      [w.storeId, event.event_id, w.order.id, trigger, event.event_name, JSON.stringify(event), now],
    );
    if (row) fresh.push(row.event_id);
  }
  if (!fresh.length) return;
  await enqueueInTransaction(tx, CAPI_QUEUE, fresh.map((eventId) => ({ data: { storeId: w.storeId, eventId } })));
}

interface ConversionRow {
  store_id: string;
  event_id: string;
  event: ConversionEvent;
  status: string;
  created_at: Date | string;
}

/** A failure worth another attempt: pg-boss schedules it with backoff. */
export class RetryLater extends Error {}

/**
 * Sends one queued event. Throttling and outages are retried (RetryLater) until 7 days after the
 * write; a refused token (error 190) makes the connection `expired`; other refusals, a disabled
 * Conversions API or no token end the event as `failed`.
 */
export async function sendConversion(deps: Deps, storeId: string, eventId: string, now = new Date()): Promise<'sent' | 'failed' | 'retrying' | 'skipped'> {
  const ctx = systemContext(deps, 'ads-conversions');
  const em = ctx.em;
  const [row] = await em.execute<ConversionRow[]>('select store_id, event_id, event, status, created_at from ads_conversions where store_id = ? and event_id = ?', [storeId, eventId]);
  if (!row || row.status === 'sent' || row.status === 'failed') return 'skipped';
  const settle = async (status: 'sent' | 'failed' | 'retrying', error: string | null) => {
    await em.execute(
      `update ads_conversions set status = ?, attempts = attempts + 1, last_error = ?, last_attempt_at = ?, sent_at = case when ? then ?::timestamptz else sent_at end
        where store_id = ? and event_id = ?`,
      [status, error?.slice(0, 500) ?? null, now, status === 'sent', now, storeId, eventId],
    );
    return status;
  };
  if (now.getTime() - new Date(row.created_at).getTime() > GIVE_UP_MS) return settle('failed', 'Gave up: not accepted within 7 days');
  const loaded = await loadIntegration(ctx, storeId, ADS_KEY);
  const s = settingsOf(loaded?.config);
  if (!loaded?.row.enabled || !s.conversionsApi.enabled || !s.pixelId) return settle('failed', 'The Conversions API was turned off before the event was sent');
  const connection = await connectionRow(ctx, storeId);
  const own = loaded.secrets.conversionsApiAccessToken;
  const token = own ?? connectionToken(deps, connection);
  if (!token) return settle('failed', 'No token to send with: connect the ads platform or set conversionsApi.accessToken');
  try {
    await metaProvider(deps).sendEvents({ pixelId: s.pixelId, token, events: [row.event], testEventCode: s.conversionsApi.testEventCode });
    return await settle('sent', null);
  } catch (err) {
    if (!(err instanceof AdsError)) {
      await settle('retrying', (err as Error).message);
      throw new RetryLater((err as Error).message);
    }
    if (err.kind === 'rate_limited' || err.kind === 'unavailable') {
      await settle('retrying', err.message);
      throw new RetryLater(err.message);
    }
    if (err.kind === 'expired' && !own) await markExpired(ctx, storeId, err.message);
    return settle('failed', err.message);
  }
}

export function conversionsQueueOptions(deps: Deps) {
  return {
    expireInSeconds: 60,
    retryLimit: RETRY_LIMIT,
    retryDelay: RETRY_DELAY_S,
    retryBackoff: true,
    retryDelayMax: RETRY_DELAY_MAX_S,
    // Jobs waiting to retry must outlive the 7 days they may retry for.
    retentionSeconds: 8 * 86_400,
    deleteAfterSeconds: 86_400,
    notify: !deps.embedded,
  };
}
