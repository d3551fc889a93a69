import { systemContext, type Ctx, type Deps } from '../../core/context.js';
import { problem } from '../../core/errors.js';
import { applyOrRefuse, transaction, type TxCtx } from '../../core/tx.js';
import type { ProviderEvent } from '../../providers/payment.js';
import { adapterOf, paymentSettings, type ProviderName } from './payment.providers.js';
import { applyPaymentReport, applyRefundReport } from './payment.service.js';
import { storeOfOrder } from '../orders/order.payments.js';

/** What a provider's call brings: the raw body is what the signature covers. */
export interface ProviderRequest {
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  ip: string;
}

export interface ProviderReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Every unverifiable call gets this very answer: nothing tells an unknown order from a bad signature. */
const UNVERIFIED: ProviderReply = {
  status: 401,
  headers: { 'content-type': 'application/problem+json' },
  body: problem('UNAUTHENTICATED', 'The provider event could not be verified'),
};

/**
 * Records the event once (unique on store + provider + event id) and applies it in the same transaction;
 * a replay answers 200 and changes nothing. Events about payments of another store (or, on
 * Chargily's per-order endpoint, another order) are recorded and ignored.
 */
async function applyEvent(ctx: Ctx, provider: ProviderName, storeId: string, event: ProviderEvent, orderId: string | null): Promise<ProviderReply> {
  const duplicate = await transaction(ctx, async (tx) => {
    const inserted = await tx.em.execute<Array<{ event_id: string }>>(
      'insert into payment_events (provider, event_id, store_id, type, received_at) values (?, ?, ?, ?, ?) on conflict (store_id, provider, event_id) do nothing returning event_id',
      [provider, event.id, storeId, event.type.slice(0, 200), new Date()],
    );
    if (!inserted.length) return true;
    // An event that can never apply is kept as rejected and answered 200: the provider would redeliver it forever.
    const refused = await applyOrRefuse(tx, (sp) => applyReport(sp, provider, storeId, event, orderId));
    if (refused) {
      await tx.em.execute('update payment_events set rejected = ? where store_id = ? and provider = ? and event_id = ?', [refused, storeId, provider, event.id]);
      ctx.deps.log.warn({ storeId, provider, reason: refused }, 'payment event rejected');
    }
    return false;
  });
  return { status: 200, body: { received: 1, duplicates: duplicate ? 1 : 0 } };
}

/** What a verified event says of a checkout or a refund of this store, applied to it (unknown ones are ignored). */
async function applyReport(tx: TxCtx, provider: ProviderName, storeId: string, event: ProviderEvent, orderId: string | null): Promise<void> {
  if (event.checkout) {
    const c = event.checkout;
    const paymentId = await findPayment(tx, provider, storeId, c.ref, c.paymentId, orderId);
    if (paymentId) await applyPaymentReport(tx, paymentId, { state: c.state, chargeRef: c.chargeRef, providerRef: c.ref, amount: c.amount, currency: c.currency });
  }
  if (event.refund) {
    const r = event.refund;
    const [row] = await tx.em.execute<Array<{ id: string }>>(
      'select id from payment_refunds where store_id = ? and (provider_ref = ? or (provider_ref is null and id = ?)) limit 1',
      [storeId, r.ref, r.refundId ?? ''],
    );
    if (row) await applyRefundReport(tx, row.id, { state: r.state, providerRef: r.ref });
  }
}

/** The payment an event names: by the provider's checkout id, else by our id in its metadata (a checkout whose creation answer was lost). */
async function findPayment(tx: TxCtx, provider: string, storeId: string, ref: string, paymentId: string | null, orderId: string | null): Promise<string | null> {
  const [row] = await tx.em.execute<Array<{ id: string }>>(
    `select id from payments where provider = ? and store_id = ? and (provider_ref = ? or (provider_ref is null and id = ?))
       ${orderId ? 'and order_id = ?' : ''} limit 1`,
    [provider, storeId, ref, paymentId ?? '', ...(orderId ? [orderId] : [])],
  );
  return row?.id ?? null;
}

/** ⇢ POST /v1/orders/{orderId}/payment/webhook: Chargily's per-checkout `webhook_endpoint`. */
export async function chargilyWebhook(req: ProviderRequest, deps: Deps): Promise<ProviderReply> {
  const ctx = systemContext(deps, req.ip);
  const storeId = await storeOfOrder(ctx, req.params.orderId);
  if (!storeId) return UNVERIFIED;
  const settings = await paymentSettings(ctx, storeId);
  const event = adapterOf(deps.config, 'chargily').verifyWebhook(req.headers, req.rawBody, settings.secrets, new Date());
  if (!event) return UNVERIFIED;
  return applyEvent(ctx, 'chargily', storeId, event, req.params.orderId);
}

/** ⇢ POST /v1/stores/{storeId}/payment/webhook: Stripe's endpoint; the order is found by the session's metadata. */
export async function stripeWebhook(req: ProviderRequest, deps: Deps): Promise<ProviderReply> {
  const ctx = systemContext(deps, req.ip);
  const [store] = await ctx.em.execute<Array<{ id: string }>>('select id from stores where id = ?', [req.params.storeId]);
  if (!store) return UNVERIFIED;
  const settings = await paymentSettings(ctx, store.id);
  const event = adapterOf(deps.config, 'stripe').verifyWebhook(req.headers, req.rawBody, settings.secrets, new Date());
  if (!event) return UNVERIFIED;
  return applyEvent(ctx, 'stripe', store.id, event, null);
}
