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

describe('the OpenAPI document for generators', () => {
  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  test('is small, lint-clean (no warnings either), and names each answered type once by $ref', async () => {
    const size = JSON.stringify(doc).length;
    // About 2 KB an operation (schemas named once, examples by reference): 500 KB holds the ~230 routes with room.
    assert.ok(size < 500_000, `the document is ${size} bytes`);
    const result = await lintOpenApi(doc);
    assert.equal(result.warnings, 0, formatProblems(result.problems));
    const order = (await api('GET', '/v1/openapi.json')).body.paths['/v1/stores/{storeId}/orders/{orderId}'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(order, { $ref: '#/components/schemas/Order' });
    assert.equal(doc.components.schemas.Order.properties.items.items.$ref, '#/components/schemas/OrderItem');
  });

  test('operationIds are hand-chosen names, tags are described', () => {
    for (const { path, method, op } of operations()) {
      assert.match(op.operationId, /^[a-z][A-Za-z]*$/, `${method} ${path}: ${op.operationId}`);
      assert.ok(!/(Get|Post|Put|Patch|Delete)$/.test(op.operationId), `${method} ${path}: path-derived ${op.operationId}`);
    }
    for (const t of doc.tags) assert.ok(t.description.length > 40 && !/ routes$/.test(t.description), `${t.name}: ${t.description}`);
  });

  test('errors are listed where the route can give them', () => {
    const responses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    assert.ok(!responses('/v1/users/auth/signup', 'post').includes('401'));
    assert.ok(responses('/v1/users/auth/signin', 'post').includes('401'));
    assert.ok(responses('/v1/stores', 'get').includes('401'));
    for (const path of ['/v1/stores/{storeId}/orders', '/v1/stores/{storeId}/orders/{orderId}', '/v1/stores/{storeId}/products']) {
      assert.ok(!responses(path, 'get').some((c) => c === '502' || c === '503'), path);
    }
    assert.ok(responses('/v1/stores/{storeId}/integrations/carrier/wilayas', 'get').includes('502'));
    const callback = doc.paths['/v1/integrations/connectors/platform/callback'].get.responses['409'];
    assert.equal(callback.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    const promo = doc.components.schemas.PromoCreateInput.properties;
    assert.equal(promo.startsAt.format, 'date-time');
    assert.equal(promo.endsAt.format, 'date-time');
    assert.equal(doc.components.schemas.PurchaseOrderCreateInput.properties.expectedAt.format, 'date-time');
  });

  test('every operation has an example request and answer, each valid against its schema', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const addFormats = (await import('ajv-formats')).default as unknown as (a: InstanceType<typeof Ajv2020>) => void;
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi' });
    const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
    const exampleOf = (media: any) => (media.example !== undefined ? media.example : doc.components.examples[media.examples?.example?.$ref?.split('/').pop()]?.value);
    let checked = 0;
    for (const { path, method, op } of operations()) {
      const json = (content: any) => Object.entries(content ?? {}).filter(([type]) => /json$/.test(type)) as Array<[string, any]>;
      const request = json(op.requestBody?.content);
      for (const [type, media] of request) {
        const value = exampleOf(media);
        assert.notEqual(value, undefined, `${method} ${path}: no request example`);
        const validate = ajv.compile({ $ref: `openapi#/${pointer('paths', path, method, 'requestBody', 'content', type, 'schema')}` });
        assert.ok(validate(value), `${method} ${path} request example: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
      for (const [code, res] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(code) >= 300 || !res.content) continue;
        for (const [type, media] of json(res.content)) {
          const value = exampleOf(media);
          assert.notEqual(value, undefined, `${method} ${path} ${code}: no answer example`);
          const validate = ajv.compile({ $ref: `openapi#/${pointer('paths', path, method, 'responses', code, 'content', type, 'schema')}` });
          assert.ok(validate(value), `${method} ${path} ${code} example: ${ajv.errorsText(validate.errors)}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 200, `only ${checked} examples`);
  });
});
