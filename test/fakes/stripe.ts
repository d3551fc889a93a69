import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A local Stripe speaking its wire shape: form-encoded `POST /v1/checkout/sessions`,
 * `POST /v1/checkout/sessions/{id}/expire` (open sessions only, else 400) and
 * `POST /v1/refunds` with `Idempotency-Key` (same key + same body → the first answer again;
 * another body → 400 idempotency_error), `GET` of both, amounts in minor units, refunds never
 * above the charge. `pay`/`fail`/`expire` settle a session and post a signed event
 * (`Stripe-Signature: t=…,v1=…` over `t.body` with the account's webhook secret) to the
 * account's webhook URL.
 */
export interface Account {
  webhookSecret: string;
  webhookUrl: string | null;
}

export interface StripeDelivery {
  status: number;
  body: string;
  raw: string;
  header: string;
}

export interface FakeStripe {
  url: string;
  /** Secret key → account. */
  accounts: Map<string, Account>;
  sessions: Map<string, any>;
  refunds: Map<string, any>;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; form: Record<string, string> }>;
  failNext: Array<{ status: number; headers?: Record<string, string>; body?: unknown }>;
  delayMs: number;
  /** Status new refunds take (Stripe answers `pending` for some methods). */
  refundStatus: string;
  pay(sessionId: string, opts?: { deliver?: boolean }): Promise<{ event: any; raw: string; header: string; delivery: StripeDelivery | null }>;
  fail(sessionId: string, opts?: { deliver?: boolean }): Promise<{ event: any; raw: string; header: string; delivery: StripeDelivery | null }>;
  expire(sessionId: string, opts?: { deliver?: boolean }): Promise<{ event: any; raw: string; header: string; delivery: StripeDelivery | null }>;
  /** Posts an event about any object (a refund update) the way Stripe does. */
  emit(apiKey: string, type: string, object: any): Promise<{ event: any; raw: string; header: string; delivery: StripeDelivery | null }>;
  signHeader(raw: string, secret: string, t?: number): string;
  post(url: string, raw: string, header: string): Promise<StripeDelivery>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}`, ...headers }).end(JSON.stringify(body));
const stripeError = (res: ServerResponse, status: number, type: string, message: string, code?: string) => json(res, status, { error: { type, message, ...(code ? { code } : {}) } });
const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

/** Stripe's own scheme: HMAC-SHA256 over `${t}.${payload}` with the whole `whsec_` secret. */
export function stripeSignatureHeader(raw: string, secret: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const accounts = new Map<string, Account>();
  const sessions = new Map<string, any>();
  const refunds = new Map<string, any>();
  const requests: FakeStripe['requests'] = [];
  /** `${apiKey} ${idempotencyKey}` → the first request's body and answer. */
  const idempotent = new Map<string, { raw: string; status: number; body: unknown }>();
  const fake = { accounts, sessions, refunds, requests, failNext: [], delayMs: 0, refundStatus: 'succeeded' } as unknown as FakeStripe;

  const handle = async (req: IncomingMessage, raw: string, apiKey: string): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> => {
    const path = (req.url ?? '/').split('?')[0];
    const form = Object.fromEntries(new URLSearchParams(raw));
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (form.mode !== 'payment') return { status: 400, body: { error: { type: 'invalid_request_error', message: 'Missing required param: mode.' } } };
      if (!form.success_url) return { status: 400, body: { error: { type: 'invalid_request_error', message: 'Missing required param: success_url.' } } };
      const unitAmount = Number(form['line_items[0][price_data][unit_amount]']);
      const quantity = Number(form['line_items[0][quantity]'] ?? 1);
      if (!Number.isInteger(unitAmount) || unitAmount < 1) return { status: 400, body: { error: { type: 'invalid_request_error', message: 'Invalid integer: unit_amount.' } } };
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]] = v;
      }
      const s = {
        id: id('cs'),
        object: 'checkout.session',
        mode: 'payment',
        url: `${fake.url}/c/pay/${randomBytes(8).toString('hex')}`,
        status: 'open',
        payment_status: 'unpaid',
        payment_intent: null as string | null,
        amount_total: unitAmount * quantity,
        currency: form['line_items[0][price_data][currency]'],
        client_reference_id: form.client_reference_id ?? null,
        success_url: form.success_url,
        cancel_url: form.cancel_url ?? null,
        metadata,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
        expires_at: Math.floor(Date.now() / 1000) + 86_400,
        apiKey,
      };
      sessions.set(s.id, s);
      return { status: 200, body: publicSession(s) };
    }
    const expiring = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (req.method === 'POST' && expiring) {
      const s = sessions.get(expiring[1]);
      if (!s || s.apiKey !== apiKey) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such checkout.session: '${expiring[1]}'` } } };
      if (s.status !== 'open') {
        return { status: 400, body: { error: { type: 'invalid_request_error', message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".` } } };
      }
      s.status = 'expired';
      return { status: 200, body: publicSession(s) };
    }
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && session) {
      const s = sessions.get(session[1]);
      if (!s || s.apiKey !== apiKey) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such checkout.session: '${session[1]}'` } } };
      return { status: 200, body: publicSession(s) };
    }
    if (req.method === 'POST' && path === '/v1/refunds') {
      const s = [...sessions.values()].find((x) => x.payment_intent && x.payment_intent === form.payment_intent && x.apiKey === apiKey);
      if (!s) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${form.payment_intent}'` } } };
      const refunded = [...refunds.values()].filter((r) => r.payment_intent === s.payment_intent && r.status !== 'failed' && r.status !== 'canceled').reduce((a, r) => a + r.amount, 0);
      const amount = form.amount ? Number(form.amount) : s.amount_total - refunded;
      if (amount + refunded > s.amount_total) {
        return { status: 400, body: { error: { type: 'invalid_request_error', code: 'amount_too_large', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${s.amount_total - refunded})` } } };
      }
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]] = v;
      }
      const r = { id: id('re'), object: 'refund', amount, currency: s.currency, payment_intent: s.payment_intent, status: fake.refundStatus, metadata, created: Math.floor(Date.now() / 1000), apiKey };
      refunds.set(r.id, r);
      return { status: 200, body: publicSession(r) };
    }
    const refund = /^\/v1\/refunds\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && refund) {
      const r = refunds.get(refund[1]);
      if (!r || r.apiKey !== apiKey) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such refund: '${refund[1]}'` } } };
      return { status: 200, body: publicSession(r) };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } } };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (!auth || !accounts.has(auth[1])) return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided: sk_test_****');
      const apiKey = auth[1];
      if (req.method === 'POST' && req.headers['content-type'] !== 'application/x-www-form-urlencoded') {
        return stripeError(res, 400, 'invalid_request_error', 'Stripe takes form-encoded bodies');
      }
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, form: Object.fromEntries(new URLSearchParams(raw)) });
      if (fake.delayMs) await new Promise((r) => setTimeout(r, fake.delayMs));
      const forced = fake.failNext.shift();
      if (forced) return json(res, forced.status, forced.body ?? { error: { type: 'api_error', message: 'forced failure' } }, forced.headers);
      const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined;
      if (typeof key === 'string') {
        const seen = idempotent.get(`${apiKey} ${key}`);
        if (seen) {
          if (seen.raw !== raw) return stripeError(res, 400, 'idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
          return json(res, seen.status, seen.body, { 'idempotent-replayed': 'true' });
        }
      }
      const out = await handle(req, raw, apiKey);
      if (typeof key === 'string' && out.status < 500) idempotent.set(`${apiKey} ${key}`, { raw, status: out.status, body: out.body });
      return json(res, out.status, out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = async (url: string, raw: string, header: string): Promise<StripeDelivery> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header }, body: raw });
    return { status: res.status, body: await res.text(), raw, header };
  };
  const emit = async (apiKey: string, type: string, object: any, deliver = true) => {
    const account = accounts.get(apiKey);
    if (!account) throw new Error('unknown account');
    const event = {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: '2024-06-20',
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: publicSession(object) },
    };
    const raw = JSON.stringify(event);
    const header = stripeSignatureHeader(raw, account.webhookSecret);
    const delivery = deliver && account.webhookUrl ? await post(account.webhookUrl, raw, header) : null;
    return { event, raw, header, delivery };
  };
  const settle = (sessionId: string, change: (s: any) => string, deliver: boolean) => {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    const type = change(s);
    return emit(s.apiKey, type, s, deliver);
  };
  fake.pay = (sid, opts = {}) =>
    settle(
      sid,
      (s) => {
        // A customer cannot pay a session that expired (Stripe shows it as expired).
        if (s.status === 'expired') throw new Error(`session ${sid} is expired`);
        s.status = 'complete';
        s.payment_status = 'paid';
        s.payment_intent = id('pi');
        return 'checkout.session.completed';
      },
      opts.deliver ?? true,
    );
  fake.fail = (sid, opts = {}) =>
    settle(
      sid,
      (s) => {
        s.status = 'complete';
        s.payment_status = 'unpaid';
        return 'checkout.session.async_payment_failed';
      },
      opts.deliver ?? true,
    );
  fake.expire = (sid, opts = {}) =>
    settle(
      sid,
      (s) => {
        s.status = 'expired';
        return 'checkout.session.expired';
      },
      opts.deliver ?? true,
    );
  fake.emit = (apiKey, type, object) => emit(apiKey, type, object);
  fake.signHeader = (raw, secret, t) => stripeSignatureHeader(raw, secret, t);
  fake.post = post;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}

/** The object as Stripe shows it (without the fake's bookkeeping). */
function publicSession(o: any) {
  const { apiKey: _apiKey, ...rest } = o;
  return rest;
}
