import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A local Chargily Pay v2 speaking its wire shape: `POST /api/v2/checkouts` (JSON, Bearer secret
 * key) → a checkout with `checkout_url`; `GET /api/v2/checkouts/{id}`; `POST
 * /api/v2/checkouts/{id}/expire` (a pending checkout expires; an expired one → 400, any other
 * status → 403). `pay`/`fail` settle a
 * checkout and post the signed event (header `signature` = hex HMAC-SHA256 of the raw body keyed
 * by the secret key) to the checkout's own `webhook_endpoint`.
 */
export interface ChargilyCheckout {
  id: string;
  entity: 'checkout';
  livemode: boolean;
  amount: number;
  currency: string;
  status: string;
  checkout_url: string;
  success_url: string;
  failure_url: string | null;
  webhook_endpoint: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number;
}

export interface Delivery {
  status: number;
  body: string;
  raw: string;
  signature: string;
}

export interface FakeChargily {
  url: string;
  /** Secret keys the fake accepts (a store's chargilySecretKey). */
  keys: Set<string>;
  checkouts: Map<string, ChargilyCheckout & { key: string }>;
  /** Every create request as received: path, headers, parsed body. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: any }>;
  /** Ids of the checkouts an expire call named, in order (whatever the answer). */
  expired: string[];
  /** The next answers to create calls, e.g. `{status: 500}`; then normal service resumes. */
  failNext: Array<{ status: number; headers?: Record<string, string>; body?: unknown }>;
  /** Milliseconds each create call takes (to widen race windows). */
  delayMs: number;
  pay(id: string, opts?: { deliver?: boolean }): Promise<{ event: any; raw: string; signature: string; delivery: Delivery | null }>;
  fail(id: string, opts?: { deliver?: boolean }): Promise<{ event: any; raw: string; signature: string; delivery: Delivery | null }>;
  sign(raw: string, key: string): string;
  post(url: string, raw: string, signature: string): Promise<Delivery>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

export async function startFakeChargily(): Promise<FakeChargily> {
  const checkouts = new Map<string, ChargilyCheckout & { key: string }>();
  const keys = new Set<string>();
  const requests: FakeChargily['requests'] = [];
  const sign = (raw: string, key: string) => createHmac('sha256', key).update(raw).digest('hex');
  const expired: string[] = [];
  const fake = { keys, checkouts, requests, expired, failNext: [], delayMs: 0 } as unknown as FakeChargily;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (!auth || !keys.has(auth[1])) return json(res, 401, { message: 'Unauthenticated.' });
      const key = auth[1];
      if (req.method === 'POST' && path === '/api/v2/checkouts') {
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          return json(res, 400, { message: 'Malformed JSON' });
        }
        requests.push({ method: 'POST', path, headers: req.headers, body });
        if (fake.delayMs) await new Promise((r) => setTimeout(r, fake.delayMs));
        const forced = fake.failNext.shift();
        if (forced) return json(res, forced.status, forced.body ?? { message: 'forced failure' }, forced.headers);
        const errors: Record<string, string[]> = {};
        if (!Number.isInteger(body.amount) || body.amount < 50) errors.amount = ['The amount must be an integer of at least 50.'];
        if (body.currency !== 'dzd') errors.currency = ['The selected currency is invalid.'];
        if (typeof body.success_url !== 'string' || !/^https?:\/\//.test(body.success_url)) errors.success_url = ['The success url field must be a valid URL.'];
        if (Object.keys(errors).length) return json(res, 422, { message: Object.values(errors)[0][0], errors });
        const id = `01${randomBytes(12).toString('hex')}`;
        const now = Math.floor(Date.now() / 1000);
        const c = {
          id,
          entity: 'checkout' as const,
          livemode: false,
          amount: body.amount,
          currency: 'dzd',
          status: 'pending',
          checkout_url: `${fake.url}/test/checkout/${id}/pay`,
          success_url: body.success_url,
          failure_url: body.failure_url ?? null,
          webhook_endpoint: body.webhook_endpoint ?? null,
          description: body.description ?? null,
          metadata: body.metadata ?? null,
          created_at: now,
          updated_at: now,
          key,
        };
        checkouts.set(id, c);
        const { key: _key, ...publicView } = c;
        return json(res, 200, publicView);
      }
      const expiring = /^\/api\/v2\/checkouts\/([^/]+)\/expire$/.exec(path);
      if (req.method === 'POST' && expiring) {
        const c = checkouts.get(expiring[1]);
        if (!c || c.key !== key) return json(res, 404, { message: 'Not found' });
        expired.push(c.id);
        if (c.status === 'expired') return json(res, 400, { message: 'The checkout is already expired.' });
        if (c.status !== 'pending') return json(res, 403, { message: 'Only a pending checkout can be expired.' });
        c.status = 'expired';
        c.updated_at = Math.floor(Date.now() / 1000);
        const { key: _key, ...publicView } = c;
        return json(res, 200, publicView);
      }
      const one = /^\/api\/v2\/checkouts\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && one) {
        requests.push({ method: 'GET', path, headers: req.headers, body: null });
        const c = checkouts.get(one[1]);
        if (!c || c.key !== key) return json(res, 404, { message: 'Not found' });
        const { key: _key, ...publicView } = c;
        return json(res, 200, publicView);
      }
      return json(res, 404, { message: 'Not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = async (url: string, raw: string, signature: string): Promise<Delivery> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', signature }, body: raw });
    return { status: res.status, body: await res.text(), raw, signature };
  };
  const settle = async (id: string, status: 'paid' | 'failed', deliver: boolean) => {
    const c = checkouts.get(id);
    if (!c) throw new Error(`no checkout ${id}`);
    if (c.status === 'expired') throw new Error(`checkout ${id} is expired`);
    c.status = status;
    c.updated_at = Math.floor(Date.now() / 1000);
    const { key, ...data } = c;
    const event = { id: `01evt${randomBytes(10).toString('hex')}`, entity: 'event', livemode: 'false', type: `checkout.${status}`, data, created_at: c.updated_at, updated_at: c.updated_at };
    const raw = JSON.stringify(event);
    const signature = sign(raw, key);
    const delivery = deliver && c.webhook_endpoint ? await post(c.webhook_endpoint, raw, signature) : null;
    return { event, raw, signature, delivery };
  };
  fake.pay = (id, opts = {}) => settle(id, 'paid', opts.deliver ?? true);
  fake.fail = (id, opts = {}) => settle(id, 'failed', opts.deliver ?? true);
  fake.sign = sign;
  fake.post = post;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}
