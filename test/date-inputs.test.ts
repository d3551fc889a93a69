// Times given to promos and purchase orders are DateTimeISO in GraphQL, as every time it answers;
// REST takes the same ISO strings (a plain date as midnight UTC) and answers as before.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(async () => {
  await svc?.close();
});

test('the inputs startsAt, endsAt and expectedAt are DateTimeISO, like the outputs', async () => {
  const res = await api('POST', '/graphql', {
    body: { query: '{ a: __type(name: "PromoCreateInput") { inputFields { name type { name } } } b: __type(name: "PromoUpdateInput") { inputFields { name type { name } } } c: __type(name: "PurchaseOrderCreateInput") { inputFields { name type { name } } } d: __type(name: "PurchaseOrderUpdateInput") { inputFields { name type { name } } } }' },
  });
  const typeOf = (alias: string, field: string) => res.body.data[alias].inputFields.find((f: { name: string }) => f.name === field).type.name;
  for (const alias of ['a', 'b']) for (const field of ['startsAt', 'endsAt']) assert.equal(typeOf(alias, field), 'DateTimeISO', `${alias}.${field}`);
  for (const alias of ['c', 'd']) assert.equal(typeOf(alias, 'expectedAt'), 'DateTimeISO', `${alias}.expectedAt`);
});

test('REST: ISO strings with an offset, and a plain date as midnight UTC; the answers as before; a non-date says what it must be', async () => {
  const s = await ownerWithStore(api);
  const promo = await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: 'WINDOW', type: 'fixed', value: 1, startsAt: '2030-01-02T10:00:00+01:00', endsAt: '2030-02-01' } });
  assert.equal(promo.status, 201, promo.text);
  assert.equal(promo.body.startsAt, '2030-01-02T09:00:00.000Z');
  assert.equal(promo.body.endsAt, '2030-02-01T00:00:00.000Z');
  const moved = await api('PUT', `/v1/promos/${promo.body.id}?storeId=${s.storeId}`, { token: s.token, body: { endsAt: '2030-03-01T00:00:00Z' } });
  assert.equal(moved.body.endsAt, '2030-03-01T00:00:00.000Z');
  const bad = await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: 'BAD', type: 'fixed', value: 1, startsAt: 'tomorrow' } });
  assertProblem(bad, 400, 'VALIDATION_FAILED');
  assert.deepEqual(bad.body.errors, [{ path: 'startsAt', message: 'must be a date and time in ISO 8601, such as 2026-01-31T09:00:00Z' }]);
  const window = await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: 'BACKWARDS', type: 'fixed', value: 1, startsAt: '2030-01-02', endsAt: '2030-01-01' } });
  assertProblem(window, 400, 'VALIDATION_FAILED');
  assert.equal(window.body.errors[0].path, 'endsAt');

  const po = await api('POST', `/v1/finance/purchase-orders?storeId=${s.storeId}`, {
    token: s.token,
    body: { supplier: { name: 'Acme' }, items: [{ sku: 'BOX', name: 'Boxes', qtyOrdered: 1, unitCost: 1 }], expectedAt: '2030-01-15' },
  });
  assert.equal(po.status, 201, po.text);
  assert.equal(po.body.expectedAt, '2030-01-15T00:00:00.000Z');
  const later = await api('PUT', `/v1/finance/purchase-orders/${po.body.id}?storeId=${s.storeId}`, { token: s.token, body: { expectedAt: '2030-01-20T12:30:00.000Z' } });
  assert.equal(later.body.expectedAt, '2030-01-20T12:30:00.000Z');
  const cleared = await api('PUT', `/v1/finance/purchase-orders/${po.body.id}?storeId=${s.storeId}`, { token: s.token, body: { expectedAt: null } });
  assert.equal(cleared.body.expectedAt, null);
});

test('GraphQL takes the ISO string as a variable', async () => {
  const s = await ownerWithStore(api);
  const res = await api('POST', '/graphql', {
    token: s.token,
    body: {
      query: 'mutation($s: ID!, $i: PromoCreateInput!) { createPromo(storeId: $s, input: $i) { startsAt endsAt } }',
      variables: { s: s.storeId, i: { code: 'GQL', type: 'fixed', value: 1, startsAt: '2030-05-01T00:00:00Z' } },
    },
  });
  assert.deepEqual(res.body.data.createPromo, { startsAt: '2030-05-01T00:00:00.000Z', endsAt: null });
});
