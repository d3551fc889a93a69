import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseProviderJson } from '../../lib/json.js';
import { AppError } from '../../core/errors.js';
import { exponent } from '../../core/money.js';
import {
  baseUrl,
  callProvider,
  headerValue,
  ProviderError,
  type PaymentAdapter,
  type PaymentSecrets,
  type PaymentState,
  type ProviderCheckout,
} from '../payment.js';

/** Chargily Pay v2 checkout, as its API answers it (the fields Souk reads). */
interface ChargilyCheckout {
  id: string;
  entity: string;
  status: string;
  amount?: number | null;
  currency?: string | null;
  checkout_url?: string | null;
  metadata?: Record<string, unknown> | null;
}

interface ChargilyEvent {
  id?: unknown;
  entity?: unknown;
  type?: unknown;
  data?: ChargilyCheckout;
}

/** Chargily's checkout statuses: `pending` and `processing` are still open. */
const STATES: Record<string, PaymentState | null> = {
  pending: null,
  processing: null,
  paid: 'paid',
  failed: 'failed',
  canceled: 'canceled',
  expired: 'expired',
};

const EVENT_STATES: Record<string, PaymentState> = {
  'checkout.paid': 'paid',
  'checkout.failed': 'failed',
  'checkout.canceled': 'canceled',
  'checkout.expired': 'expired',
};

const secretKey = (secrets: PaymentSecrets): string => {
  const key = secrets.chargilySecretKey;
  if (!key) throw new AppError('NOT_CONFIGURED', 'Chargily Pay is not configured for this store (secrets.chargilySecretKey)');
  return key;
};

const metaString = (meta: Record<string, unknown> | null | undefined, name: string) => (meta && typeof meta[name] === 'string' ? (meta[name] as string) : null);

/** Chargily's `{message}` error body (validation errors add `errors`). */
const errorMessage = (body: { message?: unknown }) => (typeof body.message === 'string' ? body.message : undefined);

/** The checkout's amount (whole dinars at Chargily) back in minor units, and its currency. */
function amountOf(c: ChargilyCheckout): { amount: number | null; currency: string | null } {
  const currency = typeof c.currency === 'string' && /^[a-z]{3}$/i.test(c.currency) ? c.currency.toUpperCase() : null;
  const amount = Number.isSafeInteger(c.amount) && currency ? (c.amount as number) * 10 ** exponent(currency) : null;
  return { amount: amount !== null && Number.isSafeInteger(amount) ? amount : null, currency };
}

function toCheckout(c: ChargilyCheckout): ProviderCheckout {
  if (!c || typeof c.id !== 'string') throw new AppError('BAD_GATEWAY', 'Chargily Pay answered without a checkout id');
  return { ref: c.id, url: typeof c.checkout_url === 'string' ? c.checkout_url : null, state: STATES[c.status] ?? null, chargeRef: null, ...amountOf(c) };
}

/** Whole dinars: Chargily takes amounts in DZD without centimes. */
function dinars(minor: number, currency: string): number {
  const unit = 10 ** exponent(currency);
  if (minor % unit !== 0) throw new AppError('VALIDATION_FAILED', 'total: Chargily Pay takes whole dinars; the order total has centimes', [{ path: 'total', message: 'must be whole dinars for Chargily Pay' }]);
  return minor / unit;
}

/**
 * Chargily Pay v2 (`POST /api/v2/checkouts`, Bearer secret key). Webhooks go to the checkout's
 * own `webhook_endpoint`, signed with the header `signature` = hex HMAC-SHA256 of the raw body
 * keyed by the secret key. Chargily has no refund API.
 */
export function chargilyAdapter(config: { chargilyUrl: string }): PaymentAdapter {
  const api = `${baseUrl(config.chargilyUrl)}/api/v2`;
  const auth = (secrets: PaymentSecrets) => ({ authorization: `Bearer ${secretKey(secrets)}` });
  return {
    provider: 'chargily',
    methods: ['chargily'],
    refunds: false,
    secrets: ['chargilySecretKey'],
    currencies: ['DZD'],
    async createCheckout(req, secrets) {
      const body = {
        amount: dinars(req.amount, req.currency),
        currency: 'dzd',
        success_url: req.successUrl,
        ...(req.failureUrl ? { failure_url: req.failureUrl } : {}),
        webhook_endpoint: req.webhookUrl,
        description: req.description,
        metadata: { orderId: req.orderId, paymentId: req.paymentId, storeId: req.storeId },
      };
      const c = await callProvider<ChargilyCheckout>({
        name: 'Chargily Pay',
        method: 'POST',
        url: `${api}/checkouts`,
        headers: { ...auth(secrets), 'content-type': 'application/json' },
        body: JSON.stringify(body),
        errorMessage,
      });
      const out = toCheckout(c);
      if (!out.url) throw new AppError('BAD_GATEWAY', 'Chargily Pay answered without a checkout_url');
      return out;
    },
    async retrieve(ref, secrets) {
      return toCheckout(
        await callProvider<ChargilyCheckout>({ name: 'Chargily Pay', method: 'GET', url: `${api}/checkouts/${encodeURIComponent(ref)}`, headers: auth(secrets), errorMessage }),
      );
    },
    // POST /api/v2/checkouts/{id}/expire: only a `pending` checkout expires; Chargily answers 400
    // for an expired one and 403 for any other status, so a refusal is answered by a read.
    async expire(ref, secrets) {
      try {
        return toCheckout(
          await callProvider<ChargilyCheckout>({ name: 'Chargily Pay', method: 'POST', url: `${api}/checkouts/${encodeURIComponent(ref)}/expire`, headers: auth(secrets), errorMessage }),
        );
      } catch (err) {
        if (!(err instanceof ProviderError) || err.code === 'RATE_LIMITED') throw err;
        return this.retrieve(ref, secrets);
      }
    },
    refund: async () => {
      throw new AppError('CONFLICT', 'Chargily Pay has no refund API: record the refund with manual: true');
    },
    retrieveRefund: async () => {
      throw new AppError('CONFLICT', 'Chargily Pay has no refund API');
    },
    verifyWebhook(headers, raw, secrets) {
      const key = secrets.chargilySecretKey;
      const given = headerValue(headers, 'signature');
      if (!key || !given || !/^[0-9a-f]{64}$/i.test(given)) return null;
      const expected = createHmac('sha256', key).update(raw).digest();
      if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) return null;
      let event: ChargilyEvent;
      try {
        event = parseProviderJson(raw.toString('utf8')) as ChargilyEvent;
      } catch {
        return null;
      }
      if (!event || typeof event.id !== 'string' || typeof event.type !== 'string') return null;
      const data = event.data;
      const out = { id: event.id, type: event.type };
      if (!data || data.entity !== 'checkout' || typeof data.id !== 'string') return out;
      return {
        ...out,
        checkout: {
          ref: data.id,
          paymentId: metaString(data.metadata, 'paymentId'),
          orderId: metaString(data.metadata, 'orderId'),
          state: EVENT_STATES[event.type] ?? STATES[data.status] ?? null,
          chargeRef: null,
          ...amountOf(data),
        },
      };
    },
  };
}
