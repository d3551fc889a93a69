import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestService, type TestService } from './helpers.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

/** What an integrator does first: generate a typed client from the served document, then compile against it. */
test('openapi-typescript generates types from the served document, and a client using them type-checks', { timeout: 180_000 }, async () => {
  const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  const ast = await openapiTS(doc as never);
  const dir = mkdtempSync(join(tmpdir(), 'souk-oats-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), astToString(ast));
    writeFileSync(
      join(dir, 'use.ts'),
      `import type { paths, components } from './api';
type Store = paths['/v1/stores/{storeId}']['get']['responses']['200']['content']['application/json'];
const store: Store = { id: 'st_1', name: 'Shop', currency: 'DZD', role: 'owner', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } as Store;
const name: string = store.name;
type Order = paths['/v1/stores/{storeId}/orders/{orderId}']['get']['responses']['200']['content']['application/json'];
const phone = (o: Order): string | null => o.customerPhone;
type Problem = components['schemas']['Problem'];
const p: Problem = { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such store', code: 'NOT_FOUND' };
// @ts-expect-error a nullable field is not a plain string
const wrong = (o: Order): string => o.customerPhone;
// Enums are literal unions: a role outside the set does not compile.
const role: Store['role'] = 'viewer';
// @ts-expect-error not a role
const root: Store['role'] = 'root';
const shipping = (o: Order): 'home' | 'desk' | 'pickup' | null => o.shippingType;
export { name, phone, p, wrong, role, root, shipping };
`,
    );
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'es2022', moduleResolution: 'bundler', skipLibCheck: false }, files: ['use.ts', 'api.d.ts'] }));
    const tsc = resolve('node_modules/typescript/bin/tsc');
    const res = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
