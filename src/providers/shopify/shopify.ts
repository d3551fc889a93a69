import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseProviderJson } from '../../lib/json.js';
import { callJson, DEFAULT_TIMEOUT_MS } from '../http.js';
import { WebhookMalformed, WebhookUnverifiable } from '../carrier.js';
import {
  ConnectorError,
  type ConnectorEvent,
  type ConnectorProvider,
  type InstallCallback,
  type RemoteOrder,
  type RemoteProduct,
} from '../connector.js';

export const SHOPIFY_API_VERSION = '2024-10';
const PAGE_SIZE = 250;
/** An install callback older than this is refused (CONTRACT-2 §14), and one dated this far ahead. */
const CALLBACK_MAX_AGE_S = 24 * 3600;
const CALLBACK_MAX_AHEAD_S = 3600;

export interface ShopifyOptions {
  /** A shop's admin base URL with `{shop}` in it (`https://{shop}`). */
  adminUrlTemplate: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
}

/**
 * Shopify ids pass 2^53: read as JSON numbers they would lose digits. Every `id`/`*_id` value of
 * 16 digits or more is turned into a string before parsing.
 */
export function parseShopifyJson(raw: string): unknown {
  return parseProviderJson(raw.replace(/("(?:[a-z_]+_)?id"\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null);
const idOf = (v: unknown): string | null => (typeof v === 'string' && /^\d{1,30}$/.test(v) ? v : typeof v === 'number' && Number.isInteger(v) ? String(v) : null);
const decimal = (v: unknown): string | null => {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : null;
  return s !== null && /^-?\d{1,15}(\.\d{1,10})?$/.test(s) ? s : null;
};
const instant = (v: unknown): Date | null => {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

function hmacEquals(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A Shopify product payload (webhook or REST) in Souk's terms; null when it has no id. */
export function remoteProduct(p: Record<string, any>): RemoteProduct | null {
  const remoteId = idOf(p.id);
  if (!remoteId) return null;
  const variants: Array<Record<string, any>> = Array.isArray(p.variants) ? p.variants : [];
  const status = p.status === 'draft' || p.status === 'archived' ? p.status : 'active';
  return {
    remoteId,
    updatedAt: instant(p.updated_at),
    name: text(p.title) ?? `Product ${remoteId}`,
    handle: text(p.handle),
    price: variants.map((v) => decimal(v.price)).find((v) => v !== null) ?? null,
    sku: variants.map((v) => text(v.sku)).find((v) => v !== null) ?? null,
    stock: variants.reduce((sum, v) => sum + (Number.isInteger(v.inventory_quantity) ? v.inventory_quantity : 0), 0),
    allowBackorder: variants.some((v) => v.inventory_policy === 'continue'),
    status,
  };
}

const PAYMENT_STATUS: Record<string, RemoteOrder['paymentStatus']> = {
  pending: 'pending',
  authorized: 'pending',
  partially_paid: 'pending',
  paid: 'paid',
  partially_refunded: 'partially_refunded',
  refunded: 'refunded',
  voided: 'unpaid',
  expired: 'unpaid',
};

/** A Shopify order payload (webhook or REST) in Souk's terms; null when it has no id. */
export function remoteOrder(o: Record<string, any>): RemoteOrder | null {
  const remoteId = idOf(o.id);
  if (!remoteId) return null;
  const ship: Record<string, any> | null = o.shipping_address && typeof o.shipping_address === 'object' ? o.shipping_address : null;
  const bill: Record<string, any> | null = o.billing_address && typeof o.billing_address === 'object' ? o.billing_address : null;
  const customer: Record<string, any> = o.customer && typeof o.customer === 'object' ? o.customer : {};
  const fullName = (a: Record<string, any> | null) => (a ? text(a.name) ?? text([a.first_name, a.last_name].filter((x) => typeof x === 'string' && x.trim()).join(' ')) : null);
  const shippingLines: Array<Record<string, any>> = Array.isArray(o.shipping_lines) ? o.shipping_lines : [];
  const shippingCost =
    decimal(o.total_shipping_price_set?.shop_money?.amount) ??
    String(shippingLines.reduce((sum, l) => sum + Number(decimal(l.price) ?? 0), 0));
  const items = (Array.isArray(o.line_items) ? (o.line_items as Array<Record<string, any>>) : []).map((l) => ({
    remoteProductId: idOf(l.product_id),
    name: text(l.title) ?? text(l.name) ?? 'Item',
    quantity: Number.isInteger(l.quantity) && l.quantity > 0 ? l.quantity : 1,
    price: decimal(l.price) ?? '0',
  }));
  const province = text(ship?.province_code);
  return {
    remoteId,
    name: text(o.name),
    updatedAt: instant(o.updated_at),
    currency: typeof o.currency === 'string' && /^[A-Z]{3}$/.test(o.currency) ? o.currency : null,
    customerName: fullName(ship) ?? fullName(bill) ?? text([customer.first_name, customer.last_name].filter((x) => typeof x === 'string' && x.trim()).join(' ')) ?? text(o.email) ?? `Order ${text(o.name) ?? remoteId}`,
    customerPhone: text(ship?.phone) ?? text(o.phone) ?? text(customer.phone) ?? text(bill?.phone),
    items,
    shippingCost,
    discount: decimal(o.total_discounts) ?? '0',
    shippingAddress: ship
      ? {
          country: typeof ship.country_code === 'string' && /^[A-Za-z]{2}$/.test(ship.country_code) ? ship.country_code.toUpperCase() : 'DZ',
          address: text([ship.address1, ship.address2].filter((x) => typeof x === 'string' && x.trim()).join(', ')),
          communeName: text(ship.city),
          wilayaCode: province && /^\d{1,2}$/.test(province) ? String(Number(province)) : null,
        }
      : null,
    paymentStatus: PAYMENT_STATUS[String(o.financial_status)] ?? 'unpaid',
    kind: o.cancelled_at ? 'cancelled' : o.fulfillment_status === 'fulfilled' ? 'fulfilled' : null,
  };
}

/** The `page_info` of a REST answer's `Link: <...>; rel="next"`, or null on the last page. */
function nextPageInfo(link: string | string[] | undefined): string | null {
  const header = Array.isArray(link) ? link.join(',') : link;
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) {
      try {
        return new URL(m[1]).searchParams.get('page_info');
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** A shop's domain as Shopify documents it. */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** Shopify's app-install flow, Admin REST API and webhooks, at the admin URL configuration gives. */
export class ShopifyConnector implements ConnectorProvider {
  readonly provider = 'shopify';

  constructor(private readonly opts: ShopifyOptions) {}

  private admin(shop: string): string {
    return this.opts.adminUrlTemplate.replaceAll('{shop}', shop).replace(/\/+$/, '');
  }

  /**
   * Only Shopify's own form, `<name>.myshopify.com` (a bare name gets the suffix): the admin URL
   * is built from it, so any other host would be a server Souk sends the app's secret to.
   */
  normalizeShop(input: string): string | null {
    let shop = input.trim().toLowerCase();
    if (/^[a-z0-9][a-z0-9-]{0,59}$/.test(shop)) shop = `${shop}.myshopify.com`;
    return shop.length <= 255 && SHOP_DOMAIN.test(shop) ? shop : null;
  }

  installUrl(o: { shop: string; state: string; redirectUri: string; scopes: readonly string[] }): string {
    const u = new URL(`${this.admin(o.shop)}/admin/oauth/authorize`);
    u.searchParams.set('client_id', this.opts.clientId);
    u.searchParams.set('scope', o.scopes.join(','));
    u.searchParams.set('redirect_uri', o.redirectUri);
    u.searchParams.set('state', o.state);
    return u.toString();
  }

  /** `hmac` = hex HMAC-SHA256 of the other parameters, sorted, `k=v` joined by `&`, keyed by the client secret. */
  verifyCallback(query: Record<string, unknown>, now: Date): InstallCallback {
    const given = query.hmac;
    if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) throw new WebhookUnverifiable();
    const pairs: string[] = [];
    for (const key of Object.keys(query).sort()) {
      if (key === 'hmac' || key === 'signature') continue;
      const v = query[key];
      if (typeof v !== 'string') throw new WebhookUnverifiable();
      pairs.push(`${key}=${v}`);
    }
    const expected = createHmac('sha256', this.opts.clientSecret).update(pairs.join('&')).digest();
    if (!hmacEquals(expected, Buffer.from(given, 'hex'))) throw new WebhookUnverifiable();
    const ts = typeof query.timestamp === 'string' && /^\d{1,12}$/.test(query.timestamp) ? Number(query.timestamp) : NaN;
    const age = now.getTime() / 1000 - ts;
    if (!Number.isFinite(age) || age > CALLBACK_MAX_AGE_S || age < -CALLBACK_MAX_AHEAD_S) throw new WebhookUnverifiable();
    const shop = typeof query.shop === 'string' ? this.normalizeShop(query.shop) : null;
    const state = query.state;
    if (!shop || typeof state !== 'string' || !state) throw new WebhookUnverifiable();
    const code = typeof query.code === 'string' && query.code ? query.code : null;
    const error = typeof query.error === 'string' && query.error ? query.error : null;
    if (!code && !error) throw new WebhookUnverifiable();
    return { shop, state, code, error };
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', shop: string, path: string, o: { token?: string; body?: unknown; query?: Record<string, string> } = {}) {
    const url = new URL(`${this.admin(shop)}${path}`);
    for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const res = await callJson(url, { method, body: o.body, timeoutMs, headers: o.token ? { 'x-shopify-access-token': o.token } : {} });
    if (!res.ok) throw new ConnectorError('unavailable', res.reason === 'timeout' ? `The shop did not answer within ${timeoutMs} ms` : 'The shop could not be reached');
    const status = res.status;
    if (status === 401 || status === 403) throw new ConnectorError('auth', `The shop refused the access token (HTTP ${status})`);
    if (status === 429) {
      const retry = Number(res.headers['retry-after']);
      throw new ConnectorError('rate_limited', 'The shop rate limit is reached', Number.isFinite(retry) && retry > 0 ? Math.ceil(retry) : 2);
    }
    if (status >= 500) throw new ConnectorError('unavailable', `The shop failed (HTTP ${status})`);
    let body: unknown = null;
    try {
      body = res.text ? parseShopifyJson(res.text) : null;
    } catch {
      throw new ConnectorError('unavailable', 'The shop answered something other than JSON');
    }
    return { status, body: body as Record<string, any> | null, headers: res.headers };
  }

  async exchangeCode(shop: string, code: string): Promise<{ accessToken: string; scopes: string[] }> {
    const res = await this.call('POST', shop, '/admin/oauth/access_token', { body: { client_id: this.opts.clientId, client_secret: this.opts.clientSecret, code } });
    const token = res.body?.access_token;
    if (res.status >= 300 || typeof token !== 'string' || !token) throw new ConnectorError('rejected', `The shop refused the authorization code (HTTP ${res.status})`);
    const scope = res.body?.scope;
    return { accessToken: token, scopes: typeof scope === 'string' ? scope.split(',').map((s) => s.trim()).filter(Boolean) : [] };
  }

  async registerWebhooks(shop: string, token: string, address: string, topics: readonly string[]): Promise<void> {
    for (const topic of topics) {
      const res = await this.call('POST', shop, `/admin/api/${SHOPIFY_API_VERSION}/webhooks.json`, { token, body: { webhook: { topic, address, format: 'json' } } });
      // 422: this address already has the topic (a reinstall); anything else is a failure.
      if (res.status >= 300 && res.status !== 422) throw new ConnectorError('rejected', `The shop refused the ${topic} webhook (HTTP ${res.status})`);
    }
  }

  private async page(shop: string, token: string, resource: 'products' | 'orders', cursor: string | null) {
    // A page_info cursor carries the filters of its first page; Shopify refuses them repeated.
    const query: Record<string, string> = { limit: String(PAGE_SIZE), ...(cursor ? { page_info: cursor } : resource === 'orders' ? { status: 'any' } : {}) };
    const res = await this.call('GET', shop, `/admin/api/${SHOPIFY_API_VERSION}/${resource}.json`, { token, query });
    if (res.status >= 300) throw new ConnectorError('rejected', `The shop refused to list ${resource} (HTTP ${res.status})`);
    const list = res.body?.[resource];
    return { list: Array.isArray(list) ? (list as Array<Record<string, any>>) : [], nextCursor: nextPageInfo(res.headers.link) };
  }

  async products(shop: string, token: string, cursor: string | null): Promise<{ data: RemoteProduct[]; nextCursor: string | null }> {
    const { list, nextCursor } = await this.page(shop, token, 'products', cursor);
    return { data: list.map(remoteProduct).filter((p): p is RemoteProduct => p !== null), nextCursor };
  }

  async orders(shop: string, token: string, cursor: string | null): Promise<{ data: RemoteOrder[]; nextCursor: string | null }> {
    const { list, nextCursor } = await this.page(shop, token, 'orders', cursor);
    return { data: list.map(remoteOrder).filter((o): o is RemoteOrder => o !== null), nextCursor };
  }

  /** `X-Shopify-Hmac-Sha256` = base64 HMAC-SHA256 of the raw body, keyed by the app's client secret. */
  parseWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer): ConnectorEvent {
    const header = (name: string) => {
      const v = headers[name];
      return typeof v === 'string' ? v.trim() : null;
    };
    const given = header('x-shopify-hmac-sha256');
    if (!given || !/^[A-Za-z0-9+/]{43}=$/.test(given)) throw new WebhookUnverifiable();
    const expected = createHmac('sha256', this.opts.clientSecret).update(raw).digest();
    if (!hmacEquals(expected, Buffer.from(given, 'base64'))) throw new WebhookUnverifiable();
    const shop = this.normalizeShop(header('x-shopify-shop-domain') ?? '');
    if (!shop) throw new WebhookUnverifiable();
    const topic = header('x-shopify-topic');
    const eventId = header('x-shopify-event-id') ?? header('x-shopify-webhook-id');
    if (!topic || !eventId || eventId.length > 200) throw new WebhookMalformed('X-Shopify-Topic and X-Shopify-Event-Id are required');
    let body: Record<string, any>;
    try {
      const parsed = parseShopifyJson(raw.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, any>;
    } catch {
      throw new WebhookMalformed('the body is not a JSON object');
    }
    const base = { eventId, topic, shop };
    if (topic === 'app/uninstalled') return { ...base, type: 'uninstalled' };
    if (topic === 'products/delete' || topic === 'orders/delete') {
      const remoteId = idOf(body.id);
      if (!remoteId) throw new WebhookMalformed('the body has no id');
      return topic === 'products/delete' ? { ...base, type: 'product_deleted', remoteId } : { ...base, type: 'order_deleted', remoteId };
    }
    if (topic === 'products/create' || topic === 'products/update') {
      const product = remoteProduct(body);
      if (!product) throw new WebhookMalformed('the product has no id');
      return { ...base, type: 'product', product };
    }
    if (/^orders\/(create|updated|cancelled|fulfilled|paid|partially_fulfilled)$/.test(topic)) {
      const order = remoteOrder(body);
      if (!order) throw new WebhookMalformed('the order has no id');
      return { ...base, type: 'order', order };
    }
    return { ...base, type: 'other' };
  }

  async revoke(shop: string, token: string): Promise<void> {
    const res = await this.call('DELETE', shop, '/admin/api_permissions/current.json', { token });
    if (res.status >= 300) throw new ConnectorError('rejected', `The shop refused to uninstall the app (HTTP ${res.status})`);
  }
}
