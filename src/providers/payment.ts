import { loadGot } from '../lib/got.js';
import { parseProviderJson } from '../lib/json.js';
import { AppError } from '../core/errors.js';

/**
 * The payment provider interface (CONTRACT-2 §15): each adapter speaks its provider's real wire
 * shape and converts amounts to the provider's unit. Amounts here are minor units of `currency`.
 */
export type PaymentState = 'requires_action' | 'pending' | 'paid' | 'failed' | 'canceled' | 'expired';
export type RefundState = 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';

/** The store's `payments` integration secrets, decrypted for the call. */
export type PaymentSecrets = Record<string, string | undefined>;

export interface CheckoutRequest {
  paymentId: string;
  orderId: string;
  storeId: string;
  amount: number;
  currency: string;
  successUrl: string;
  failureUrl: string | null;
  /** Where the provider posts this checkout's events (Chargily's per-checkout endpoint). */
  webhookUrl: string;
  description: string;
}

export interface ProviderCheckout {
  ref: string;
  url: string | null;
  /** Null when the provider's answer says nothing new about the outcome. */
  state: PaymentState | null;
  chargeRef: string | null;
  /** What the checkout asks for (or took), converted back to minor units of `currency`; null when the answer does not say. */
  amount: number | null;
  /** ISO 4217, upper case; null when the answer does not say. */
  currency: string | null;
}

export interface RefundRequest {
  refundId: string;
  paymentId: string;
  checkoutRef: string | null;
  chargeRef: string | null;
  amount: number;
  currency: string;
  reason: string | null;
}

export interface ProviderRefund {
  ref: string | null;
  state: RefundState;
}

/** A verified provider event, reduced to what Souk applies. */
export interface ProviderEvent {
  id: string;
  type: string;
  checkout?: {
    ref: string;
    paymentId: string | null;
    orderId: string | null;
    state: PaymentState | null;
    chargeRef: string | null;
    /** As in ProviderCheckout: what the provider says the checkout is for, minor units of `currency`. */
    amount: number | null;
    currency: string | null;
  };
  refund?: { ref: string; refundId: string | null; state: RefundState };
}

export interface PaymentAdapter {
  provider: 'cod' | 'chargily' | 'stripe';
  /** Methods this provider offers (the names `select` and `checkout` take). */
  methods: readonly string[];
  /** Whether the provider has a refund API; without one a refund must be `manual`. */
  refunds: boolean;
  /** Integration secrets the provider needs before it is available. */
  secrets: readonly string[];
  /** Currencies the provider takes; null = any. */
  currencies: readonly string[] | null;
  createCheckout(req: CheckoutRequest, secrets: PaymentSecrets): Promise<ProviderCheckout>;
  retrieve(ref: string, secrets: PaymentSecrets): Promise<ProviderCheckout>;
  /**
   * Closes an open checkout so it can no longer be paid; a checkout that is no longer open (paid
   * meanwhile, already expired) is answered with its current state instead.
   */
  expire(ref: string, secrets: PaymentSecrets): Promise<ProviderCheckout>;
  refund(req: RefundRequest, secrets: PaymentSecrets): Promise<ProviderRefund>;
  retrieveRefund(ref: string, secrets: PaymentSecrets): Promise<ProviderRefund>;
  /** The event when the signature (and its age, where signed) checks out; null otherwise. */
  verifyWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer, secrets: PaymentSecrets, now: Date): ProviderEvent | null;
}

/** A provider's refusal or failure, as CONTRACT-2 §9 maps it; `credentials` marks the integration `error`. */
export class ProviderError extends AppError {
  constructor(
    code: 'BAD_GATEWAY' | 'RATE_LIMITED',
    message: string,
    readonly credentials = false,
    headers?: Record<string, string>,
  ) {
    super(code, message, undefined, headers);
  }
}

export const PROVIDER_TIMEOUT_MS = 10_000;

export interface ProviderCall {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The provider's error message in a failed answer, shown to the caller (never a secret). */
  errorMessage?: (body: any) => string | undefined;
}

/** One outbound call with got: 10 s timeout, no retries, no redirects, statuses mapped per CONTRACT-2 §9. */
export async function callProvider<T>(call: ProviderCall): Promise<T> {
  const { default: got } = await loadGot();
  let res;
  try {
    res = await got(call.url, {
      method: call.method,
      headers: { accept: 'application/json', 'user-agent': 'Souk', ...call.headers },
      body: call.body,
      timeout: { request: PROVIDER_TIMEOUT_MS },
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
    });
  } catch (err) {
    const timedOut = (err as { code?: string }).code === 'ETIMEDOUT';
    throw new ProviderError('BAD_GATEWAY', timedOut ? `${call.name} did not answer within ${PROVIDER_TIMEOUT_MS / 1000} s` : `${call.name} could not be reached`);
  }
  let body: any = null;
  try {
    body = res.body ? parseProviderJson(res.body) : null;
  } catch {
    body = null;
  }
  const status = res.statusCode;
  if (status === 401 || status === 403) throw new ProviderError('BAD_GATEWAY', `${call.name} refused the store's credentials (HTTP ${status})`, true);
  if (status === 429) {
    const retryAfter = String(res.headers['retry-after'] ?? '') || '60';
    throw new ProviderError('RATE_LIMITED', `${call.name} is rate limiting this store's requests`, false, { 'Retry-After': retryAfter });
  }
  if (status >= 500) throw new ProviderError('BAD_GATEWAY', `${call.name} failed (HTTP ${status})`);
  if (status >= 300) {
    const detail = body ? call.errorMessage?.(body) : undefined;
    throw new ProviderError('BAD_GATEWAY', `${call.name} refused the request (HTTP ${status})${detail ? `: ${String(detail).slice(0, 200)}` : ''}`);
  }
  if (body === null || typeof body !== 'object') throw new ProviderError('BAD_GATEWAY', `${call.name} answered with something other than JSON`);
  return body as T;
}

/** A header's single value (a repeated header counts as absent: nothing to verify against). */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = headers[name.toLowerCase()];
  return typeof v === 'string' ? v : null;
}

/** Provider base URLs come from configuration only (CONTRACT-2 §9), without a trailing slash. */
export const baseUrl = (url: string) => url.replace(/\/+$/, '');

