// compose.yaml: the web replicas sit behind one published port. No Docker engine runs here, so the
// file is parsed and its proxy's nginx configuration is run for real (Debian's nginx, where
// installed) in front of a service, with the replica's name replaced by the service's address.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { loadConfig } from '../src/config.js';
import { BODY_LIMIT } from '../src/server/http.js';
import { client, freePort, ownerWithStore, startTestService, until, type Api, type TestService } from './helpers.js';
import { openSse } from './sse-client.js';

interface Service {
  image?: string;
  ports?: string[];
  expose?: string[];
  environment?: Record<string, string>;
  configs?: Array<{ source: string; target: string }>;
  depends_on?: Record<string, { condition: string }>;
}

const doc = parseDocument(readFileSync('compose.yaml', 'utf8'), { merge: true });
const compose = doc.toJS() as { services: Record<string, Service>; configs: Record<string, { content: string }> };
/** What compose hands the container: `$$` is a literal `$`. */
const proxyConf = () => compose.configs[compose.services.proxy.configs![0].source].content.replaceAll('$$', '$');

describe('compose.yaml', () => {
  test('parses; only the proxy publishes a port (4000), so `--scale web=2` starts', () => {
    assert.deepEqual(doc.errors, []);
    const published = Object.entries(compose.services).filter(([, s]) => s.ports?.length);
    assert.deepEqual(published.map(([name, s]) => [name, s.ports]), [['proxy', ['4000:4000']]]);
    assert.match(compose.services.proxy.image ?? '', /^nginx:\d+\.\d+-alpine$/);
    assert.equal(compose.services.proxy.configs![0].target, '/etc/nginx/conf.d/default.conf');
    assert.equal(compose.services.proxy.depends_on?.web?.condition, 'service_healthy');
    assert.deepEqual(compose.services.web.expose, ['4000']);
    for (const file of ['compose.yaml', 'README.md', 'docs/operations.md']) assert.ok(/docker compose up --build --scale web=2/.test(readFileSync(file, 'utf8')), `${file} does not show the scaled start`);
  });

  test("the proxy's configuration: Docker's DNS asked again, streams unbuffered, the client named, bodies up to the service's own limit", () => {
    // Outside `$$`, a `$` would be compose's own interpolation.
    assert.doesNotMatch(compose.configs.proxy.content.replaceAll('$$', ''), /\$/);
    const conf = proxyConf();
    assert.match(conf, /^resolver 127\.0\.0\.11 valid=\d+s/m);
    assert.match(conf, /listen 4000;/);
    assert.match(conf, /set \$web web:4000;\s+proxy_pass http:\/\/\$web;/);
    assert.match(conf, /proxy_buffering off;/);
    // Set, not appended to: a client cannot put an address of its choosing in front.
    assert.match(conf, /proxy_set_header X-Forwarded-For \$remote_addr;/);
    const size = /client_max_body_size (\d+)m;/.exec(conf);
    assert.ok(size && Number(size[1]) * 1024 * 1024 > BODY_LIMIT, 'nginx would refuse bodies the service accepts, in HTML');
    // The web replicas believe the proxy's X-Forwarded-For: the networks compose puts it on.
    const trust = compose.services.web.environment!.SOUK_TRUST_PROXY;
    assert.deepEqual(loadConfig({ SOUK_TRUST_PROXY: trust, SOUK_DATA_DIR: tmpdir(), SOUK_SECRET_KEY: '0'.repeat(64) }).trustProxy, ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']);
  });
});

const NGINX = spawnSync('nginx', ['-v']).status === 0 ? 'nginx' : null;

describe("the proxy's nginx configuration in front of a service", { skip: NGINX ? false : 'no nginx on PATH (Debian: apt-get install nginx-light)' }, () => {
  let svc: TestService;
  let dir: string;
  let nginx: ChildProcess;
  let base: string;
  before(async () => {
    // The service believes its loopback proxy, as web believes the compose networks; two sign-ins a minute per client address.
    svc = await startTestService({ SOUK_TRUST_PROXY: '127.0.0.1', SOUK_AUTH_RATE_LIMIT_IP: '2' });
    dir = mkdtempSync(join(tmpdir(), 'souk-proxy-'));
    // nginx's workers run as an unprivileged user when started as root: its temp files must be theirs to write.
    chmodSync(dir, 0o777);
    for (const t of ['body', 'proxy']) mkdirSync(join(dir, t), { mode: 0o777 });
    const port = await freePort();
    const server = proxyConf()
      .replace('listen 4000;', `listen 127.0.0.1:${port};`)
      .replace('web:4000', new URL(svc.url).host);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log; worker_processes 1; events {}\n` +
        `http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;\n${server}\n}\n`,
    );
    const check = spawnSync(NGINX!, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    nginx = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    base = `http://127.0.0.1:${port}`;
    await until('nginx to answer', async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok);
  });
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx.once('exit', r));
      nginx.kill('SIGQUIT');
      await exited;
    }
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an event stream flows through as it is written', { timeout: 60_000 }, async () => {
    const api = client(svc.url);
    // Signed up as a client address of its own: 127.0.0.1's sign-in budget is the last test's.
    const owner = await ownerWithStore(((method, path, opts = {}) => api(method, path, { ...opts, headers: { 'x-forwarded-for': '192.0.2.50', ...opts.headers } })) as Api);
    const stream = await openSse(`${base}/v1/stores/${owner.storeId}/events/stream`, { authorization: `Bearer ${owner.token}` });
    try {
      assert.equal(stream.status, 200);
      const order = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Through the proxy' } });
      const [msg] = await stream.waitFor(1, 30_000);
      assert.equal(JSON.parse(msg.data).data.order.id, order.body.id);
    } finally {
      await stream.close();
    }
  });

  test("a body over the service's limit is the service's own 413 problem+json", async () => {
    const res = await fetch(`${base}/v1/users/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(BODY_LIMIT) }) });
    assert.equal(res.status, 413);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  });

  test('the per-address sign-in limit counts the client the proxy saw, whatever X-Forwarded-For the client sends', async () => {
    const signin = (base: string, n: number, forwardedFor: string) =>
      fetch(`${base}/v1/users/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ email: `nobody${n}-${Date.now()}@example.com`, password: 'wrong password' }),
      }).then((r) => r.status);
    // Straight to the service (its peer is the trusted 127.0.0.1): the forwarded address is the client.
    assert.deepEqual([await signin(svc.url, 1, '203.0.113.1'), await signin(svc.url, 2, '203.0.113.1'), await signin(svc.url, 3, '203.0.113.1')], [401, 401, 429]);
    assert.equal(await signin(svc.url, 4, '203.0.113.2'), 401);
    // Through the proxy, a made-up X-Forwarded-For is replaced by the address nginx saw: one client, one budget.
    assert.deepEqual([await signin(base, 5, '198.51.100.1'), await signin(base, 6, '198.51.100.2'), await signin(base, 7, '198.51.100.3')], [401, 401, 429]);
  });
});
