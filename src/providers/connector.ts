/**
 * What Souk needs of a commerce platform whose shop feeds a store (inbound): an app install with
 * a signed OAuth callback, webhook registration, paged reads for the first import, and signed
 * webhooks. Shopify's wire shape is the first adapter. Amounts stay decimal text in the shop's
 * currency here; the domain converts them.
 */

export interface RemoteProduct {
  remoteId: string;
  updatedAt: Date | null;
  name: string;
  handle: string | null;
  /** Decimal text, e.g. "19.99"; null: no variant carries a price. */
  price: string | null;
  sku: string | null;
  stock: number;
  allowBackorder: boolean;
  status: 'active' | 'draft' | 'archived';
}

export interface RemoteOrderItem {
  remoteProductId: string | null;
  name: string;
  quantity: number;
  price: string;
}

export interface RemoteOrder {
  remoteId: string;
  /** The shop's own order number, e.g. "#1001". */
  name: string | null;
  updatedAt: Date | null;
  currency: string | null;
  customerName: string;
  customerPhone: string | null;
  items: RemoteOrderItem[];
  shippingCost: string;
  discount: string;
  shippingAddress: { country: string; address: string | null; communeName: string | null; wilayaCode: string | null } | null;
  paymentStatus: 'unpaid' | 'pending' | 'paid' | 'partially_refunded' | 'refunded';
  /** The status kind the remote state implies; null: open (the local status is left as it is). */
  kind: 'cancelled' | 'fulfilled' | null;
}

/** One verified webhook, in Souk's terms. */
export type ConnectorEvent = { eventId: string; topic: string; shop: string } & (
  | { type: 'product'; product: RemoteProduct }
  | { type: 'product_deleted'; remoteId: string }
  | { type: 'order'; order: RemoteOrder }
  | { type: 'order_deleted'; remoteId: string }
  | { type: 'uninstalled' }
  | { type: 'other' }
);

/** A verified install callback: the provider's `error` when the merchant declined. */
export interface InstallCallback {
  shop: string;
  state: string;
  code: string | null;
  error: string | null;
}

export interface ConnectorProvider {
  readonly provider: string;
  /** The shop domain a merchant typed, normalized; null when it is not one. */
  normalizeShop(input: string): string | null;
  installUrl(o: { shop: string; state: string; redirectUri: string; scopes: readonly string[] }): string;
  /** Checks the callback's signature and age; throws WebhookUnverifiable. */
  verifyCallback(query: Record<string, unknown>, now: Date): InstallCallback;
  exchangeCode(shop: string, code: string): Promise<{ accessToken: string; scopes: string[] }>;
  registerWebhooks(shop: string, token: string, address: string, topics: readonly string[]): Promise<void>;
  products(shop: string, token: string, cursor: string | null): Promise<{ data: RemoteProduct[]; nextCursor: string | null }>;
  orders(shop: string, token: string, cursor: string | null): Promise<{ data: RemoteOrder[]; nextCursor: string | null }>;
  /** Checks the signature over the raw body; throws WebhookUnverifiable or WebhookMalformed. */
  parseWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer): ConnectorEvent;
  revoke(shop: string, token: string): Promise<void>;
}

/** A failed platform call: `auth` (token refused), `rate_limited`, `unavailable` (5xx, network), `rejected`. */
export class ConnectorError extends Error {
  constructor(
    readonly kind: 'auth' | 'rate_limited' | 'unavailable' | 'rejected',
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}
