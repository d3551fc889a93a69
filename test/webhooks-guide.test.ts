import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';

// The receiver snippets of docs/webhooks.md, run as written against real deliveries.
const guide = readFileSync(new URL('../docs/webhooks.md', import.meta.url), 'utf8');
const block = (lang: string) => {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(guide);
  if (!m) throw new Error(`docs/webhooks.md has no ${lang} block`);
  return m[1];
};

let svc: TestService;
let api: Api;
const dir = mkdtempSync(join(tmpdir(), 'souk-guide-'));

before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_WEBHOOK_ALLOW_HTTP: '1' });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function runReceiver(cmd: string, file: string, secret: string): Promise<{ child: ChildProcess; port: number; lines: string[] }> {
  const port = await freePort();
  const child = spawn(cmd, [file], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  child.stdout!.on('data', (d) => lines.push(...String(d).split('\n').filter(Boolean)));
  const deadline = Date.now() + 10_000;
  while (!lines.includes('listening')) {
    if (Date.now() > deadline) throw new Error(`${cmd} receiver did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, port, lines };
}

async function exercise(cmd: string, file: string) {
  const s = await ownerWithStore(api);
  const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'Guide', url: 'http://127.0.0.1:1/placeholder' } });
  const r = await runReceiver(cmd, file, hook.body.secret);
  try {
    const url = `http://127.0.0.1:${r.port}/souk`;
    await api('PATCH', `/v1/stores/${s.storeId}/integrations/webhooks/${hook.body.id}`, { token: s.token, body: { url } });
    const ok = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks/${hook.body.id}/test`, { token: s.token, body: { event: 'orderUpdated' } });
    assert.equal(ok.body.status, 'success', ok.text);
    assert.equal(ok.body.statusCode, 200);
    const wrong = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks/test`, { token: s.token, body: { url, secret: 'whsec_not_the_right_one' } });
    assert.equal(wrong.body.statusCode, 401);
    assert.equal(wrong.body.status, 'failed');
    const deadline = Date.now() + 5000;
    while (!r.lines.some((l) => l.startsWith('verified')) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    assert.deepEqual(r.lines.filter((l) => l.startsWith('verified')), [`verified orderUpdated ${ok.body.id}`]);
  } finally {
    r.child.kill();
  }
}

test('the Node receiver of the guide (standardwebhooks) verifies real deliveries and rejects a wrong signature', async () => {
  // Inside the project, so its `import 'standardwebhooks'` resolves as in the reader's project.
  const local = mkdtempSync(join(process.cwd(), 'node_modules', '.cache', 'souk-guide-'));
  try {
    const file = join(local, 'receiver.mjs');
    writeFileSync(file, block('js'));
    await exercise(process.execPath, file);
  } finally {
    rmSync(local, { recursive: true, force: true });
  }
});

test('the guide leads with the Standard Webhooks headers and keeps X-Svc-Signature-256 as the legacy check', () => {
  const std = guide.indexOf('webhook-signature');
  const legacy = guide.indexOf('## Legacy: X-Svc-Signature-256');
  assert.ok(std > 0 && legacy > std);
  assert.ok(guide.indexOf('standardwebhooks') < guide.indexOf('## Rules for a receiver'));
  assert.match(guide, /5 minutes/);
});

const hasPython = spawnSync('python3', ['--version']).status === 0;
test('the Python receiver of the guide verifies real deliveries and rejects a wrong signature', { skip: hasPython ? false : 'python3 is not installed' }, async () => {
  const file = join(dir, 'receiver.py');
  writeFileSync(file, block('python'));
  await exercise('python3', file);
});
