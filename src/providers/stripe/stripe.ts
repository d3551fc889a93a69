import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseProviderJson } from '../../lib/json.js';
import { AppError } from '../../core/errors.js';
import {
  baseUrl,
  callProvider,
  headerValue,
  ProviderError,
  type PaymentAdapter,
  type PaymentSecrets,
  type PaymentState,
  type ProviderCheckout,
  type ProviderRefund,
  type RefundState,
} from '../payment.js';

/** Stripe's signature tolerance: a `t=` further than this from now is stale. */
export const STRIPE_TOLERANCE_S = 300;

interface StripeSession {
  id: string;
  object: string;
  url?: string | null;
  status?: string | null;
  payment_status?: string | null;
  payment_intent?: string | { id: string } | null;
  amount_total?: number | null;
  currency?: string | null;
  client_reference_id?: string | null;
  metadata?: Record<string, string> | null;
}

interface StripeRefund {
  id: string;
  object: string;
  status?: string | null;
  metadata?: Record<string, string> | null;
}

interface StripeEvent {
  id?: unknown;
  type?: unknown;
  data?: { object?: StripeSession | StripeRefund };
}

const REFUND_STATES: Record<string, RefundState> = {
  pending: 'pending',
  requires_action: 'requires_action',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'canceled',
};

/**
 * Flattens an object into Stripe's form encoding: `metadata[orderId]=…`,
 * `line_items[0][price_data][currency]=dzd`.
 */
export function formEncode(value: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (Array.isArray(v)) v.forEach((item, i) => walk(`${prefix}[${i}]`, item));
    else if (typeof v === 'object') for (const [k, inner] of Object.entries(v)) walk(prefix ? `${prefix}[${k}]` : k, inner);
    else params.append(prefix, String(v));
  };
  walk('', value);
  return params.toString();
}

const secretKey = (secrets: PaymentSecrets): string => {
  const key = secrets.stripeSecretKey;
  if (!key) throw new AppError('NOT_CONFIGURED', 'Stripe is not configured for this store (secrets.stripeSecretKey)');
  return key;
};

/** Stripe's `{error: {message}}` body. */
const errorMessage = (body: { error?: { message?: unknown } }) => (typeof body.error?.message === 'string' ? body.error.message : undefined);

const intentId = (s: StripeSession) => (typeof s.payment_intent === 'string' ? s.payment_intent : (s.payment_intent?.id ?? null));

/** A session's outcome: `complete` and paid (or nothing to pay) is paid; `expired` expired; else still open. */
function sessionState(s: StripeSession): PaymentState | null {
  if (s.status === 'expired') return 'expired';
  if (s.status === 'complete' && (s.payment_status === 'paid' || s.payment_status === 'no_payment_required')) return 'paid';
  return null;
}

/** The session's amount and currency: Stripe counts in the currency's minor units, as Souk sends them. */
const amountOf = (s: StripeSession) => ({
  amount: Number.isSafeInteger(s.amount_total) ? (s.amount_total as number) : null,
  currency: typeof s.currency === 'string' && /^[a-z]{3}$/i.test(s.currency) ? s.currency.toUpperCase() : null,
});

function toCheckout(s: StripeSession): ProviderCheckout {
  if (!s || typeof s.id !== 'string') throw new AppError('BAD_GATEWAY', 'Stripe answered without a Checkout Session id');
  return { ref: s.id, url: s.url ?? null, state: sessionState(s), chargeRef: intentId(s), ...amountOf(s) };
}

function toRefund(r: StripeRefund): ProviderRefund {
  if (!r || typeof r.id !== 'string') throw new AppError('BAD_GATEWAY', 'Stripe answered without a refund id');
  return { ref: r.id, state: REFUND_STATES[r.status ?? ''] ?? 'pending' };
}

/** What a Checkout Session event says of the payment (null: nothing new). */
function eventState(type: string, s: StripeSession): PaymentState | null {
  switch (type) {
    case 'checkout.session.completed':
      return sessionState({ ...s, status: 'complete' });
    case 'checkout.session.async_payment_succeeded':
      return 'paid';
    case 'checkout.session.async_payment_failed':
      return 'failed';
    case 'checkout.session.expired':
      return 'expired';
    default:
      return null;
  }
}

/**
 * `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=…]`: HMAC-SHA256 over `<t>.<raw body>` keyed by the
 * endpoint secret (`whsec_…`, the whole string). Any matching v1 passes; t must be within 300 s.
 */
export function verifyStripeSignature(header: string | null, raw: Buffer, secret: string, now: Date): boolean {
  if (!header) return false;
  let t: string | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = v;
    else if (k === 'v1') v1.push(v);
  }
  if (!t || !/^\d{1,12}$/.test(t) || !v1.length) return false;
  if (Math.abs(now.getTime() / 1000 - Number(t)) > STRIPE_TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  return v1.some((sig) => /^[0-9a-f]{64}$/i.test(sig) && timingSafeEqual(expected, Buffer.from(sig, 'hex')));
}

/**
 * Stripe Checkout Sessions and Refunds: form-encoded requests with the store's secret key,
 * Souk's payment or refund id as `Idempotency-Key`, amounts in the currency's minor units.
 */
export function stripeAdapter(config: { stripeUrl: string }): PaymentAdapter {
  const api = `${baseUrl(config.stripeUrl)}/v1`;
  const headers = (secrets: PaymentSecrets, idempotencyKey?: string) => ({
    authorization: `Bearer ${secretKey(secrets)}`,
    ...(idempotencyKey ? { 'idempotency-key': idempotencyKey, 'content-type': 'application/x-www-form-urlencoded' } : {}),
  });
  const get = <T>(path: string, secrets: PaymentSecrets) => callProvider<T>({ name: 'Stripe', method: 'GET', url: `${api}${path}`, headers: headers(secrets), errorMessage });
  const post = <T>(path: string, secrets: PaymentSecrets, key: string, body: Record<string, unknown>) =>
    callProvider<T>({ name: 'Stripe', method: 'POST', url: `${api}${path}`, headers: headers(secrets, key), body: formEncode(body), errorMessage });
  return {
    provider: 'stripe',
    methods: ['stripe'],
    refunds: true,
    secrets: ['stripeSecretKey'],
    currencies: null,
    async createCheckout(req, secrets) {
      const metadata = { orderId: req.orderId, paymentId: req.paymentId, storeId: req.storeId };
      const s = await post<StripeSession>('/checkout/sessions', secrets, req.paymentId, {
        mode: 'payment',
        success_url: req.successUrl,
        cancel_url: req.failureUrl ?? req.successUrl,
        client_reference_id: req.paymentId,
        line_items: [{ quantity: 1, price_data: { currency: req.currency.toLowerCase(), unit_amount: req.amount, product_data: { name: req.description } } }],
        metadata,
        payment_intent_data: { metadata },
      });
      const out = toCheckout(s);
      if (!out.url) throw new AppError('BAD_GATEWAY', 'Stripe answered without a Checkout Session url');
      return out;
    },
    async retrieve(ref, secrets) {
      return toCheckout(await get<StripeSession>(`/checkout/sessions/${encodeURIComponent(ref)}`, secrets));
    },
    // POST /v1/checkout/sessions/{id}/expire: only an `open` session expires; Stripe refuses any other (400).
    async expire(ref, secrets) {
      try {
        return toCheckout(await post<StripeSession>(`/checkout/sessions/${encodeURIComponent(ref)}/expire`, secrets, `expire-${ref}`, {}));
      } catch (err) {
        if (!(err instanceof ProviderError) || err.credentials || err.code === 'RATE_LIMITED') throw err;
        return this.retrieve(ref, secrets);
      }
    },
    async refund(req, secrets) {
      let intent = req.chargeRef;
      if (!intent && req.checkoutRef) intent = (await this.retrieve(req.checkoutRef, secrets)).chargeRef;
      if (!intent) throw new AppError('CONFLICT', 'Stripe has not named the PaymentIntent of this payment yet');
      const r = await post<StripeRefund>('/refunds', secrets, req.refundId, {
        payment_intent: intent,
        amount: req.amount,
        metadata: { refundId: req.refundId, paymentId: req.paymentId, ...(req.reason ? { reason: req.reason.slice(0, 500) } : {}) },
      });
      return toRefund(r);
    },
    async retrieveRefund(ref, secrets) {
      return toRefund(await get<StripeRefund>(`/refunds/${encodeURIComponent(ref)}`, secrets));
    },
    verifyWebhook(headers, raw, secrets, now) {
      const secret = secrets.stripeWebhookSecret;
      if (!secret || !verifyStripeSignature(headerValue(headers, 'stripe-signature'), raw, secret, now)) return null;
      let event: StripeEvent;
      try {
        event = parseProviderJson(raw.toString('utf8')) as StripeEvent;
      } catch {
        return null;
      }
      if (!event || typeof event.id !== 'string' || typeof event.type !== 'string') return null;
      const out = { id: event.id, type: event.type };
      const o = event.data?.object;
      if (!o || typeof o.id !== 'string') return out;
      if (o.object === 'checkout.session') {
        const s = o as StripeSession;
        return {
          ...out,
          checkout: {
            ref: s.id,
            paymentId: s.metadata?.paymentId ?? s.client_reference_id ?? null,
            orderId: s.metadata?.orderId ?? null,
            state: eventState(event.type, s),
            chargeRef: intentId(s),
            ...amountOf(s),
          },
        };
      }
      if (o.object === 'refund') {
        const r = o as StripeRefund;
        return { ...out, refund: { ref: r.id, refundId: r.metadata?.refundId ?? null, state: REFUND_STATES[r.status ?? ''] ?? 'pending' } };
      }
      return out;
    },
  };
}
