// `npm run seed`: demo data to try the API with, in one command. A demo owner, a store, three
// products, two orders and a webhook to an echo receiver this script starts on 127.0.0.1, which
// prints each delivery and checks its signature. It talks to the running service at HOST:PORT (or
// SOUK_URL); with none running it starts one itself, with loopback webhooks allowed. It keeps
// running (receiver and, if it started it, the service) until Ctrl-C; `--exit` stops after seeding.
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
  const call = async (method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // Keys make a rerun within 24 h answer the same objects instead of making new ones.
    if (key) headers['idempotency-key'] = key;
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const must = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await call(method, path, body, key);
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${res.body?.detail ?? JSON.stringify(res.body)}`);
    return res.body;
  };
  return { call, must, setToken: (t: string) => (token = t) };
}

/** Prints each delivery: event, id, and whether the Standard Webhooks signature checks out. */
function startEchoReceiver(secret: () => string | null): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = String(req.headers['webhook-id'] ?? '');
      const ts = String(req.headers['webhook-timestamp'] ?? '');
      const given = String(req.headers['webhook-signature'] ?? '').replace(/^v1,/, '');
      const key = secret();
      let verdict = 'unchecked (no secret yet)';
      if (key) {
        const mac = createHmac('sha256', Buffer.from(key.replace(/^whsec_/, ''), 'base64')).update(`${id}.${ts}.`).update(body).digest();
        const sent = Buffer.from(given, 'base64');
        verdict = sent.length === mac.length && timingSafeEqual(sent, mac) ? 'signature ok' : 'BAD SIGNATURE';
      }
      let event = '?';
      try {
        event = JSON.parse(body.toString('utf8')).event;
      } catch {
        /* not JSON: printed as unknown */
      }
      say(`echo receiver: ${event} ${id} (${verdict})`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/hooks`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
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

  const hook = await api.call('POST', `/v1/stores/${sid}/integrations/webhooks`, { name: 'Echo receiver', url: echo.url }, `seed-webhook-${echo.url}`);
  if (hook.status === 201) secret = hook.body.secret;
  else say(`webhook not created (${hook.body?.detail ?? hook.status}): the running service refuses loopback http URLs; start it with SOUK_WEBHOOK_ALLOW_LOOPBACK=1 SOUK_WEBHOOK_ALLOW_HTTP=1 to see deliveries`);

  const catalogue = [
    { name: 'Atlas mint tea', price: 850, stock: 40 },
    { name: 'Kabyle olive oil 1 L', price: 1900, stock: 25 },
    { name: 'Handwoven basket', price: 4200, stock: 6 },
  ];
  const products = [];
  for (const [i, p] of catalogue.entries()) products.push(await api.must('POST', `/v1/stores/${sid}/products`, { ...p, status: 'active' }, `seed-product-${sid}-${i}`));
  const orders = [
    await api.must('POST', `/v1/stores/${sid}/orders`, { customerName: 'Amina B.', customerPhone: '+213555010203', items: [{ productId: products[0].id, quantity: 2 }] }, `seed-order-${sid}-1`),
    await api.must('POST', `/v1/stores/${sid}/orders`, { customerName: 'Yacine K.', items: [{ productId: products[1].id, quantity: 1 }, { productId: products[2].id, quantity: 1 }] }, `seed-order-${sid}-2`),
  ];

  say();
  say('Souk demo data is ready.');
  say(`  service      ${base}`);
  say(`  owner        ${EMAIL} / ${PASSWORD}`);
  say(`  token        ${session.token}`);
  say(`  store        ${sid} (${store.name})`);
  say(`  products     ${products.map((p) => p.id).join(', ')}`);
  say(`  orders       ${orders.map((o) => o.id).join(', ')}`);
  say(`  webhook      ${hook.status === 201 ? `${hook.body.id} → ${echo.url}` : 'not created'}`);
  say();
  say('Try next:');
  say(`  export SOUK_TOKEN=${session.token}`);
  say(`  curl -H "Authorization: Bearer $SOUK_TOKEN" ${base}/v1/stores/${sid}/orders`);
  say(`  curl -X POST -H "Authorization: Bearer $SOUK_TOKEN" -H 'content-type: application/json' -H 'Idempotency-Key: my-first-order' \\`);
  say(`       -d '{"customerName":"Sara"}' ${base}/v1/stores/${sid}/orders      (the echo receiver prints the delivery)`);
  say(`  GraphiQL ${base}/graphql · API reference ${base}/v1/docs · console ${base}/dashboard (sign in as ${EMAIL})`);
  say();

  const stop = async () => {
    await echo.close();
    await stopService?.();
    process.exit(0);
  };
  if (exitAfter) {
    // Let the deliveries of the orders above arrive first.
    await new Promise((r) => setTimeout(r, 3000));
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
