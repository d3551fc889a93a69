/**
 * A local Shopify: shops served under `/<shop domain>/` (SOUK_SHOPIFY_ADMIN_URL_TEMPLATE =
 * `<url>/{shop}`), the app-install shape (`/admin/oauth/authorize` answered at once with a
 * callback signed by `hmac`, `/admin/oauth/access_token`), the Admin REST API (webhook
 * registration, products and orders with `Link: rel="next"` page_info paging, app uninstall),
 * and webhooks signed with `X-Shopify-Hmac-Sha256` the way Shopify sends them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FakeShop {
  domain: string;
  products: any[];
  orders: any[];
  tokens: Set<string>;
  webhooks: Array<{ topic: string; address: string }>;
  uninstalled: boolean;
}

export interface FakeShopify {
  url: string;
  /** SOUK_SHOPIFY_ADMIN_URL_TEMPLATE for this fake. */
  template: string;
  clientId: string;
  clientSecret: string;
  /** Records per page the fake answers with, whatever `limit` asks (to exercise paging). */
  pageSize: number;
  /** The merchant declines the install while set. */
  deny: boolean;
  shop(domain: string): FakeShop;
  calls: string[];
  close(): Promise<void>;
}

/** Shopify's JSON with ids as bare numbers, however large (ids are kept as strings here). */
export function shopifyJson(value: unknown): string {
  return JSON.stringify(value).replace(/("(?:[a-z_]+_)?id"\s*:\s*)"(\d+)"/g, '$1$2');
}

/** The callback query Shopify signs: `hmac` = hex HMAC-SHA256 of the other parameters, sorted. */
export function signQuery(params: Record<string, string>, secret: string): Record<string, string> {
  const message = Object.keys(params)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return { ...params, hmac: createHmac('sha256', secret).update(message).digest('hex') };
}

let nextId = 7_000_000_000_000;
export const shopifyId = () => String(nextId++);

export function shopifyProduct(o: { id?: string; title: string; handle?: string; price: string; qty?: number; updatedAt?: Date; status?: string; sku?: string }) {
  const id = o.id ?? shopifyId();
  return {
    id,
    title: o.title,
    handle: o.handle ?? o.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    body_html: `<p>${o.title}</p>`,
    vendor: 'Fake Shop',
    product_type: '',
    status: o.status ?? 'active',
    created_at: new Date(Date.now() - 86_400_000).toISOString(),
    updated_at: (o.updatedAt ?? new Date()).toISOString(),
    admin_graphql_api_id: `gid://shopify/Product/${id}`,
    variants: [
      { id: shopifyId(), product_id: id, title: 'Default Title', price: o.price, sku: o.sku ?? `SKU-${id}`, inventory_quantity: o.qty ?? 10, inventory_policy: 'deny' },
    ],
  };
}

export function shopifyOrder(o: {
  id?: string;
  updatedAt?: Date;
  lines: Array<{ productId?: string; title: string; quantity: number; price: string }>;
  shipping?: string;
  discount?: string;
  financialStatus?: string;
  fulfillmentStatus?: string | null;
  cancelledAt?: Date | null;
  currency?: string;
}) {
  const id = o.id ?? shopifyId();
  return {
    id,
    name: `#${1000 + (Number(id) % 1000)}`,
    email: 'client@example.com',
    currency: o.currency ?? 'DZD',
    created_at: new Date(Date.now() - 3600_000).toISOString(),
    updated_at: (o.updatedAt ?? new Date()).toISOString(),
    financial_status: o.financialStatus ?? 'pending',
    fulfillment_status: o.fulfillmentStatus ?? null,
    cancelled_at: o.cancelledAt ? o.cancelledAt.toISOString() : null,
    total_discounts: o.discount ?? '0.00',
    phone: null,
    customer: { id: shopifyId(), first_name: 'Karim', last_name: 'Haddad', phone: '+213661000111' },
    shipping_address: { first_name: 'Karim', last_name: 'Haddad', name: 'Karim Haddad', address1: '12 Rue Didouche', address2: null, city: 'Alger Centre', province_code: '16', country_code: 'DZ', phone: '0661000111' },
    shipping_lines: [{ title: 'Standard', price: o.shipping ?? '0.00' }],
    total_shipping_price_set: { shop_money: { amount: o.shipping ?? '0.00', currency_code: o.currency ?? 'DZD' } },
    line_items: o.lines.map((l) => ({ id: shopifyId(), product_id: l.productId ?? null, title: l.title, quantity: l.quantity, price: l.price })),
  };
}

/** A webhook as Shopify posts it: the JSON body and its headers, signed with the app's client secret. */
export function shopifyWebhook(topic: string, payload: unknown, o: { shop: string; secret: string; eventId?: string }) {
  const body = shopifyJson(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': o.shop,
      'x-shopify-event-id': o.eventId ?? randomUUID(),
      'x-shopify-webhook-id': randomUUID(),
      'x-shopify-api-version': '2024-10',
      'x-shopify-triggered-at': new Date().toISOString(),
      'x-shopify-hmac-sha256': createHmac('sha256', o.secret).update(body).digest('base64'),
    } as Record<string, string>,
  };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(shopifyJson(body));

export async function startFakeShopify(): Promise<FakeShopify> {
  const shops = new Map<string, FakeShop>();
  const codes = new Map<string, string>();
  const fake: FakeShopify = {
    url: '',
    template: '',
    clientId: 'shpca_' + randomBytes(8).toString('hex'),
    clientSecret: 'shpss_' + randomBytes(16).toString('hex'),
    pageSize: 250,
    deny: false,
    calls: [],
    shop(domain) {
      let s = shops.get(domain);
      if (!s) shops.set(domain, (s = { domain, products: [], orders: [], tokens: new Set(), webhooks: [], uninstalled: false }));
      return s;
    },
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://x');
    const [, domain, ...rest] = url.pathname.split('/');
    const path = '/' + rest.join('/');
    fake.calls.push(`${req.method} ${domain}${path}`);
    const shop = fake.shop(domain);
    const q = url.searchParams;
    let body: any = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return json(res, 400, { errors: 'Invalid JSON' });
      }
    }
    if (req.method === 'GET' && path === '/admin/oauth/authorize') {
      if (q.get('client_id') !== fake.clientId) return json(res, 400, { errors: 'Invalid client_id' });
      const params: Record<string, string> = { host: Buffer.from(`${domain}/admin`).toString('base64url'), shop: domain, state: q.get('state') ?? '', timestamp: String(Math.floor(Date.now() / 1000)) };
      if (fake.deny) params.error = 'access_denied';
      else {
        const code = randomBytes(16).toString('hex');
        codes.set(code, domain);
        params.code = code;
      }
      const back = new URL(q.get('redirect_uri')!);
      for (const [k, v] of Object.entries(signQuery(params, fake.clientSecret))) back.searchParams.set(k, v);
      return res.writeHead(302, { location: back.toString() }).end();
    }
    if (req.method === 'POST' && path === '/admin/oauth/access_token') {
      if (body?.client_id !== fake.clientId || body?.client_secret !== fake.clientSecret || codes.get(body?.code) !== domain) {
        return json(res, 400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
      }
      codes.delete(body.code);
      const token = 'shpat_' + randomBytes(16).toString('hex');
      shop.tokens.add(token);
      shop.uninstalled = false;
      return json(res, 200, { access_token: token, scope: 'read_products,read_orders' });
    }
    const token = req.headers['x-shopify-access-token'];
    if (typeof token !== 'string' || !shop.tokens.has(token)) return json(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    const api = /^\/admin\/api\/\d{4}-\d{2}\/(.+)$/.exec(path);
    if (req.method === 'DELETE' && path === '/admin/api_permissions/current.json') {
      shop.tokens.clear();
      shop.uninstalled = true;
      return json(res, 200, {});
    }
    if (!api) return json(res, 404, { errors: 'Not Found' });
    if (req.method === 'POST' && api[1] === 'webhooks.json') {
      const w = body?.webhook;
      if (!w?.topic || !w?.address) return json(res, 422, { errors: { topic: ["can't be blank"] } });
      if (shop.webhooks.some((x) => x.topic === w.topic && x.address === w.address)) return json(res, 422, { errors: { address: ['for this topic has already been taken'] } });
      shop.webhooks.push({ topic: w.topic, address: w.address });
      return json(res, 201, { webhook: { id: shopifyId(), topic: w.topic, address: w.address, format: 'json', created_at: new Date().toISOString() } });
    }
    if (req.method === 'GET' && (api[1] === 'products.json' || api[1] === 'orders.json')) {
      const resource = api[1] === 'products.json' ? 'products' : 'orders';
      if (q.get('page_info') && q.get('status')) return json(res, 400, { errors: 'page_info cannot be combined with other filters' });
      const start = q.get('page_info') ? Number(Buffer.from(q.get('page_info')!, 'base64url').toString()) : 0;
      const size = Math.min(fake.pageSize, Number(q.get('limit') ?? 50));
      const list = shop[resource];
      const page = list.slice(start, start + size);
      const headers: Record<string, string> = {};
      if (start + size < list.length) {
        const next = Buffer.from(String(start + size)).toString('base64url');
        headers.link = `<https://${domain}/admin/api/2024-10/${resource}.json?limit=${size}&page_info=${next}>; rel="next"`;
      }
      return json(res, 200, { [resource]: page }, headers);
    }
    return json(res, 404, { errors: 'Not Found' });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.template = `${fake.url}/{shop}`;
  return fake;
}
