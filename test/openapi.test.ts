import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { contractMismatch } from './contract.js';
import { formatProblems, lintOpenApi } from '../scripts/openapi-lint.js';
import { ROUTES } from '../rest-compat/routes/index.js';

let svc: TestService;
let api: Api;
let doc: any;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  const res = await api('GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
});
after(() => svc.close());

describe('GET /v1/openapi.json', () => {
  test('is OpenAPI 3.1 and documents every route of the REST table', () => {
    assert.equal(doc.openapi, '3.1.0');
    const missing = ROUTES.filter((r) => !doc.paths?.[r.path]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(missing, []);
  });

  test('passes redocly lint (recommended ruleset) without errors', async () => {
    const result = await lintOpenApi(doc);
    assert.equal(result.errors, 0, formatProblems(result.problems));
  });

  // Guards the harness: a lint that cannot report errors would pass anything.
  test('the lint reports errors in a broken document', async () => {
    const broken = structuredClone(doc);
    const [first, second] = Object.values(broken.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p));
    second.operationId = first.operationId;
    const result = await lintOpenApi(broken);
    assert.ok(result.errors > 0);
    assert.ok(result.problems.some((p) => p.ruleId === 'operation-operationId-unique'), formatProblems(result.problems));
  });

  // Guards the harness every test's /v1 responses go through (test/helpers.ts client).
  test('the contract check reports an unlisted status, a body off its schema, and passes a kept one', async () => {
    const problem = { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'No bearer token', code: 'UNAUTHENTICATED' };
    assert.equal(await contractMismatch(svc.url, 'GET', '/v1/users/auth', 401, 'application/problem+json', problem), null);
    assert.match((await contractMismatch(svc.url, 'GET', '/v1/users/auth', 418, 'application/json', {})) ?? '', /status 418 is not listed/);
    assert.match((await contractMismatch(svc.url, 'GET', '/v1/users/auth', 401, 'application/problem+json', { ...problem, status: '401' })) ?? '', /does not match/);
    const user = (await api('POST', '/v1/users/auth/signup', { body: { email: `c${Date.now()}@example.com`, password: 'correct horse battery', name: 'C' } })).body.user;
    assert.equal(await contractMismatch(svc.url, 'GET', '/v1/users/auth', 200, 'application/json', user), null);
    assert.match((await contractMismatch(svc.url, 'GET', '/v1/users/auth', 200, 'application/json', { ...user, createdAt: 'yesterday' })) ?? '', /date-time/);
    assert.match((await contractMismatch(svc.url, 'GET', `/v1/stores/st_x/products/p_y`, 200, 'application/json', { status: 'gone' })) ?? '', /does not match/);
  });
});
