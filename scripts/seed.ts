// `npm run seed`: demo data to try the API with, in one command. A demo owner, a store, three
// products, two orders and a webhook to an echo receiver this script starts on 127.0.0.1, which
// prints each delivery and checks its signature. It talks to the running service at HOST:PORT (or
// SOUK_URL); with none running it starts one itself, with loopback webhooks allowed. A running
// service that will not deliver to this machine (the default) gets everything but the webhook, and
// the seed says how to start it so that it does, then exits. With a webhook it keeps running
// (receiver and, if it started it, the service) until Ctrl-C; `--exit` stops once the new orders'
// deliveries have arrived.
import 'reflect-metadata';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.js';

const EMAIL = process.env.SOUK_SEED_EMAIL ?? 'demo@example.com';
const PASSWORD = process.env.SOUK_SEED_PASSWORD ?? 'souk demo password';
const exitAfter = process.argv.includes('--exit');

const say = (line = '') => process.stdout.write(`${line}\n`);

async function reachable(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1500) })).ok;
  } catch {
    return false;
  }
}

function client(base: string) {
  let token = '';
  const call = async (method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any; replayed: boolean }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // Keys make a rerun within 24 h answer the same objects instead of making new ones.
    if (key) headers['idempotency-key'] = key;
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, replayed: res.headers.get('idempotent-replayed') === 'true' };
  };
  const must = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await call(method, path, body, key);
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${res.body?.detail ?? JSON.stringify(res.body)}`);
    return res.body;
  };
  return { call, must, setToken: (t: string) => (token = t) };
}

interface EchoReceiver {
  url: string;
  /** Resolves once `n` orderCreated deliveries have arrived. */
  ordersDelivered(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Prints each delivery of the seed's webhook: event, id, and whether the Standard Webhooks
 * signature checks out. Until the webhook exists (`secret()` is null) it answers quietly: the
 * only caller then is the service's test delivery that decides whether the webhook is made.
 */
function startEchoReceiver(secret: () => string | null): Promise<EchoReceiver> {
  let orders = 0;
  const waiting = new Set<{ n: number; resolve(): void }>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      const key = secret();
      if (!key) return;
      const body = Buffer.concat(chunks);
      const id = String(req.headers['webhook-id'] ?? '');
      const ts = String(req.headers['webhook-timestamp'] ?? '');
      const given = String(req.headers['webhook-signature'] ?? '').replace(/^v1,/, '');
      const mac = createHmac('sha256', Buffer.from(key.replace(/^whsec_/, ''), 'base64')).update(`${id}.${ts}.`).update(body).digest();
      const sent = Buffer.from(given, 'base64');
      const verdict = sent.length === mac.length && timingSafeEqual(sent, mac) ? 'signature ok' : 'BAD SIGNATURE';
      let event = '?';
      try {
        event = JSON.parse(body.toString('utf8')).event;
      } catch {
        /* not JSON: printed as unknown */
      }
      say(`echo receiver: ${event} ${id} (${verdict})`);
      if (event !== 'orderCreated') return;
      orders++;
      for (const w of waiting) if (orders >= w.n) (waiting.delete(w), w.resolve());
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/hooks`,
        ordersDelivered: (n) => (orders >= n ? Promise.resolve() : new Promise<void>((done) => waiting.add({ n, resolve: done }))),
        close: () => new Promise((r) => server.close(() => r())),
      });
    }),
  );
}

const ECHO_NAME = 'Echo receiver';
type Api = ReturnType<typeof client>;

/**
 * Points the store's echo webhook at this run's receiver (an earlier run's is moved here, with a
 * new secret), once a test delivery shows the service may deliver there; otherwise says why not.
 */
async function echoWebhook(api: Api, sid: string, url: string): Promise<{ id: string; secret: string } | { refused: string }> {
  const path = `/v1/stores/${sid}/integrations/webhooks`;
  const probe = await api.call('POST', `${path}/test`, { url });
  if (probe.status !== 200) return { refused: probe.body?.errors?.[0]?.message ?? probe.body?.detail ?? `the test delivery answered ${probe.status}` };
  if (probe.body.status !== 'success') return { refused: probe.body.error ?? `the receiver answered ${probe.body.statusCode}` };
  const { data } = await api.must('GET', path);
  const earlier = data.find((w: { name: string }) => w.name === ECHO_NAME);
  const hook = earlier
    ? await api.must('PATCH', `${path}/${earlier.id}`, { url, active: true, rotateSecret: true })
    : await api.must('POST', path, { name: ECHO_NAME, url });
  return { id: hook.id, secret: hook.secret };
}

async function main(): Promise<void> {
  const config = loadConfig();
  let base = (process.env.SOUK_URL ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`).replace(/\/+$/, '');
  let stopService: (() => Promise<void>) | null = null;
  if (!(await reachable(base))) {
    say(`no service at ${base}: starting one here (Ctrl-C stops it)`);
    const { startService } = await import('../src/service.js');
    // Development only: the echo receiver is on this machine and speaks plain HTTP.
    const local = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_WEBHOOK_ALLOW_HTTP: '1' });
    const service = await startService(local);
    base = service.url;
    stopService = () => service.close();
  }
  let secret: string | null = null;
  const echo = await startEchoReceiver(() => secret);
  const api = client(base);

  const signup = await api.call('POST', '/v1/users/auth/signup', { email: EMAIL, password: PASSWORD, name: 'Demo Owner' });
  const session = signup.status === 201 ? signup.body : await api.must('POST', '/v1/users/auth/signin', { email: EMAIL, password: PASSWORD });
  api.setToken(session.token);
  const stores = await api.must('GET', '/v1/stores?limit=200');
  const store = stores.data.find((s: { name: string }) => s.name === 'Demo Store') ?? (await api.must('POST', '/v1/stores', { name: 'Demo Store' }, 'seed-store'));
  const sid = store.id as string;

  const hook = await echoWebhook(api, sid, echo.url);
  if ('secret' in hook) secret = hook.secret;

  const catalogue = [
    { name: 'Atlas mint tea', price: 850, stock: 40 },
    { name: 'Kabyle olive oil 1 L', price: 1900, stock: 25 },
    { name: 'Handwoven basket', price: 4200, stock: 6 },
  ];
  const products = [];
  for (const [i, p] of catalogue.entries()) products.push(await api.must('POST', `/v1/stores/${sid}/products`, { ...p, status: 'active' }, `seed-product-${sid}-${i}`));
  const orderInputs = [
    { customerName: 'Amina B.', customerPhone: '+213555010203', items: [{ productId: products[0].id, quantity: 2 }] },
    { customerName: 'Yacine K.', items: [{ productId: products[1].id, quantity: 1 }, { productId: products[2].id, quantity: 1 }] },
  ];
  const orders = [];
  // An earlier run's orders are answered again (same key), and make no new events.
  let newOrders = 0;
  for (const [i, o] of orderInputs.entries()) {
    const res = await api.call('POST', `/v1/stores/${sid}/orders`, o, `seed-order-${sid}-${i + 1}`);
    if (res.status >= 400) throw new Error(`POST /v1/stores/${sid}/orders answered ${res.status}: ${res.body?.detail ?? JSON.stringify(res.body)}`);
    if (!res.replayed) newOrders++;
    orders.push(res.body);
  }

  say();
  say('Souk demo data is ready.');
  say(`  service      ${base}`);
  say(`  owner        ${EMAIL} / ${PASSWORD}`);
  say(`  token        ${session.token}`);
  say(`  store        ${sid} (${store.name})`);
  say(`  products     ${products.map((p) => p.id).join(', ')}`);
  say(`  orders       ${orders.map((o) => o.id).join(', ')}${newOrders ? '' : ' (made by an earlier run: no new events)'}`);
  say(`  webhook      ${'secret' in hook ? `${hook.id} → ${echo.url}` : `not created: the service will not deliver to this machine's echo receiver (${hook.refused})`}`);
  say();
  say('Try next:');
  say(`  export SOUK_TOKEN=${session.token}`);
  say(`  curl -H "Authorization: Bearer $SOUK_TOKEN" ${base}/v1/stores/${sid}/orders`);
  // No fixed Idempotency-Key: the same key again would answer the first order instead of making one.
  say(`  curl -X POST -H "Authorization: Bearer $SOUK_TOKEN" -H 'content-type: application/json' \\`);
  say(`       -d '{"customerName":"Sara"}' ${base}/v1/stores/${sid}/orders${'secret' in hook ? '      (the echo receiver prints the delivery)' : ''}`);
  say(`  GraphiQL ${base}/graphql · API reference ${base}/v1/docs · console ${base}/dashboard (sign in as ${EMAIL})`);
  say();

  const stop = async () => {
    await echo.close();
    await stopService?.();
    process.exit(0);
  };
  if (!('secret' in hook)) {
    say('To watch signed deliveries: webhooks to this machine over plain http are off by default (the guard');
    say('against requests into your own network). Stop the service and start it with them allowed:');
    say('  SOUK_WEBHOOK_ALLOW_LOOPBACK=1 SOUK_WEBHOOK_ALLOW_HTTP=1 npm start');
    say('then run `npm run seed` again; or stop it and run `npm run seed` alone, which starts a service that allows them.');
    say('Not waiting for deliveries: there is no webhook to deliver them.');
    return stop();
  }
  if (exitAfter) {
    await echo.ordersDelivered(newOrders);
    return stop();
  }
  say('Waiting for deliveries; Ctrl-C to stop.');
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  console.error(`souk seed: ${err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
