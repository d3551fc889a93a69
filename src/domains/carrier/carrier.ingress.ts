import type { EntityManager } from '@mikro-orm/postgresql';
import { createContext, type Deps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { requireStorePermission } from '../../core/policy.js';
import { applyOrRefuse, transaction } from '../../core/tx.js';
import { WebhookMalformed, WebhookUnverifiable, type CarrierEvent } from '../../providers/carrier.js';
import { loadIntegration } from '../integrations/integration.access.js';
import { handleOf } from './carrier.client.js';
import { systemContext } from '../../core/context.js';
import { activeWebhookSecret, getCarrierWebhook } from './carrier.service.js';
import { applyNews } from './parcel.service.js';

/** What the ingress sees of a request: the raw body is kept for the signature. */
export interface IngressInput {
  storeId: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  ip: string;
}

export interface IngressReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Every webhook that cannot be verified gets this very answer, whatever the reason. */
const unverifiable = () => new AppError('UNAUTHENTICATED', 'The webhook could not be verified');

const MAX_CRC_TOKEN = 512;

/**
 * GET /webhook serves two callers on one path: Yalidine's endpoint check (any GET carrying
 * `crc_token`, answered without a bearer: it proves the endpoint and reveals nothing) and the
 * store admin reading the webhook's settings with a bearer token.
 */
export async function carrierWebhookGet(deps: Deps, req: IngressInput): Promise<IngressReply> {
  const token = req.query.crc_token;
  if (token !== undefined) {
    if (typeof token !== 'string' || token.length > MAX_CRC_TOKEN) {
      throw new AppError('BAD_REQUEST', `crc_token must be one string of at most ${MAX_CRC_TOKEN} characters`, [{ path: 'crc_token', message: 'is malformed' }]);
    }
    return { status: 200, body: { crc_token: token } };
  }
  const unknown = Object.keys(req.query);
  if (unknown.length) throw new AppError('BAD_REQUEST', `Unknown query parameter: ${unknown.join(', ')}`, unknown.map((path) => ({ path, message: 'is not a known query parameter' })));
  const authorization = req.headers.authorization;
  const ctx = await createContext(deps, typeof authorization === 'string' ? authorization : undefined, req.ip);
  if (ctx.authFailure) throw new AppError('UNAUTHENTICATED', ctx.authFailure);
  await requireStorePermission(ctx, req.storeId, 'integrations.write');
  return { status: 200, body: await getCarrierWebhook(ctx, req.storeId) };
}

/**
 * POST /webhook: a batch of carrier events, verified against the store's webhook secret, each
 * recorded once (store + provider + event id) and applied in one transaction, oldest first.
 */
export async function carrierWebhookPost(deps: Deps, req: IngressInput): Promise<IngressReply> {
  const ctx = systemContext(deps, req.ip);
  const handle = handleOf(deps, req.storeId, await loadIntegration(ctx, req.storeId, 'carrier'));
  const secret = handle ? await activeWebhookSecret(ctx, req.storeId) : null;
  if (!handle || !secret) throw unverifiable();
  let events: CarrierEvent[];
  try {
    events = handle.adapter.parseWebhook(req.headers, req.rawBody, secret);
  } catch (err) {
    if (err instanceof WebhookUnverifiable) throw unverifiable();
    if (err instanceof WebhookMalformed) throw new AppError('BAD_REQUEST', `The webhook body is malformed: ${err.message}`);
    throw err;
  }
  const now = new Date();
  const ordered = [...events].sort((a, b) => (a.occurredAt ?? now).getTime() - (b.occurredAt ?? now).getTime());
  const duplicates = await transaction(ctx, async (tx) => {
    const em = tx.em as EntityManager;
    let seen = 0;
    for (const e of ordered) {
      const [fresh] = await em.execute<Array<{ event_id: string }>>(
        `insert into carrier_events (provider, event_id, store_id, type, occurred_at, received_at) values (?, ?, ?, ?, ?, ?)
         on conflict (store_id, provider, event_id) do nothing returning event_id`,
        [handle.provider, e.eventId, req.storeId, e.type, e.occurredAt, now],
      );
      if (!fresh) {
        seen++;
        continue;
      }
      if (!e.tracking && !e.orderId) continue;
      // One event that can never apply is recorded as rejected; the rest of the batch still applies.
      const refused = await applyOrRefuse(tx, (sp) =>
        applyNews(sp, handle, { tracking: e.tracking, orderId: e.orderId, status: e.status, rawStatus: e.rawStatus, reason: e.reason, occurredAt: e.occurredAt, paymentStatus: e.paymentStatus, labelUrl: e.labelUrl, deliveryFee: null }, 'webhook'),
      );
      if (refused) {
        await em.execute('update carrier_events set rejected = ? where store_id = ? and provider = ? and event_id = ?', [refused, req.storeId, handle.provider, e.eventId]);
        deps.log.warn({ storeId: req.storeId, provider: handle.provider, reason: refused }, 'carrier event rejected');
      }
    }
    await em.execute('update carrier_webhooks set last_event_at = ? where store_id = ?', [now, req.storeId]);
    return seen;
  });
  return { status: 200, body: { received: events.length, duplicates } };
}
