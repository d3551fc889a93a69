// The compiled executor (src/edge/executor.ts, graphql-jit) against graphql-js's own `execute` on
// the same schema, documents, variables and caller: every query of the REST table and a set of
// GraphQL documents with aliases, fragments, nulls, lists, unions, variables (defaults, refused
// values) and errors must answer the same data and the same errors, field for field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execute, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { createSchema } from '../src/server/schema.js';
import { createContext } from '../src/core/context.js';
import { compileOperation } from '../src/edge/executor.js';
import { mapGraphQLError } from '../src/edge/graphql-errors.js';
import { compileRoutes } from '../rest-compat/router.js';

let svc: TestService;
let api: Api;
let schema: GraphQLSchema;
let owner: { token: string; storeId: string };
const ids: Record<string, string> = {};

/** An id no row has: routes naming it answer their not-found error on both sides. */
const MISSING = '00000000-0000-4000-8000-000000000000';

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  schema = await createSchema();
  owner = await ownerWithStore(api);
  const { token, storeId } = owner;
  ids.storeId = storeId;
  const product = await api('POST', `/v1/stores/${storeId}/products`, { token, body: { name: 'Tea', price: 3.5, stock: 7, sku: null, metadata: { a: [1, null, { b: 'c' }] } } });
  assert.equal(product.status, 201, product.text);
  ids.productId = product.body.id;
  ids.id = product.body.id;
  await api('POST', `/v1/stores/${storeId}/products`, { token, body: { name: 'Coffee', price: 4, status: 'draft' } });
  const named = await api('POST', `/v1/stores/${storeId}/orders`, { token, body: { customerName: 'Named', items: [{ productId: ids.productId, quantity: 2 }] } });
  assert.equal(named.status, 201, named.text);
  ids.orderId = named.body.id;
  const plain = await api('POST', `/v1/stores/${storeId}/orders`, {
    token,
    body: { customerName: 'Plain', customerPhone: '0550000000', items: [{ name: 'Cake', price: 2.25 }], shippingAddress: { wilayaCode: '16' }, metadata: { k: null } },
  });
  assert.equal(plain.status, 201, plain.text);
  const statuses = await api('GET', `/v1/stores/${storeId}/statuses`, { token });
  assert.equal(statuses.status, 200, statuses.text);
  ids.statusId = (statuses.body.data ?? statuses.body)[1].id;
});
after(() => svc?.close());

/** Fields that read the clock at each call. */
const VOLATILE = new Set(['lastSync']);

/** What a client can see of a result: data, and each error's message, path, locations and code. */
function seen(result: ExecutionResult) {
  const errors = result.errors?.map((e: GraphQLError) => ({
    message: e.message,
    path: e.path,
    locations: e.locations,
    code: mapGraphQLError(e).code,
    fields: mapGraphQLError(e).errors,
  }));
  return JSON.parse(JSON.stringify({ data: result.data, errors }, (k, v) => (VOLATILE.has(k) ? typeof v : v)));
}

/** Both executors on the document, each with a fresh context of the same caller. */
async function compare(label: string, document: DocumentNode, variables: Record<string, unknown> = {}, normalise: (r: any) => any = (r) => r) {
  const operation = compileOperation(schema, document);
  assert.ok(operation.compiled, `${label}: graphql-jit did not compile it, nothing would be compared`);
  const ctx = () => createContext(svc.service.deps, `Bearer ${owner.token}`, '127.0.0.1');
  const expected = normalise(seen(await execute({ schema, document, contextValue: await ctx(), variableValues: variables })));
  const actual = normalise(seen(await operation.run(await ctx(), variables)));
  assert.deepEqual(actual, expected, `${label}: the compiled result differs from graphql-js`);
  return actual;
}

const doc = (text: string) => {
  const d = parse(text);
  const problems = validate(schema, d);
  assert.deepEqual(problems, [], text);
  return d;
};

describe('compiled executor vs graphql-js', () => {
  test("every query of the REST table, with the store's records and with missing ones", async () => {
    const routes = compileRoutes(schema).filter((c) => c.document && c.route.method === 'GET' && /^\s*query\b/.test(c.route.operation ?? ''));
    assert.ok(routes.length >= 40, `only ${routes.length} query routes`);
    let withData = 0;
    for (const c of routes) {
      const vars = (known: boolean) => Object.fromEntries(c.pathParams.map((p) => [p, known ? (ids[p] ?? MISSING) : MISSING]));
      const label = `${c.route.method} ${c.route.path}`;
      const a = await compare(label, c.document!, vars(true));
      if (a.data && !a.errors) withData++;
      await compare(`${label} (missing ids)`, c.document!, vars(false));
    }
    // The comparison means something only if many routes answered data, not just errors.
    assert.ok(withData >= 15, `only ${withData} routes answered data`);
  });

  test('aliases, fragments, nulls, lists, defaults and nested errors', async () => {
    const { storeId, productId, orderId } = ids;
    const r = await compare(
      'aliases and fragments',
      doc(`query Q($s: ID!, $p: ID!, $o: ID!, $limit: Int = 1, $missing: ID! = "${MISSING}") {
        a: product(storeId: $s, id: $p) { ...P }
        b: products(storeId: $s, limit: 5) { data { ...P id } nextCursor }
        c: products(storeId: $s, limit: $limit) { data { name } nextCursor }
        order(storeId: $s, id: $o) { __typename id total items { ... on OrderItem { productId name quantity price } } shippingAddress { wilayaCode address } confirmedAt promoCode metadata }
        orders(storeId: $s) { data { customerName customerPhone shippingType shippingAddress { country } } }
        me { id email }
        m: product(storeId: $s, id: $missing) @include(if: false) { id }
      }
      fragment P on Product { __typename name price stock sku metadata status }`),
      { s: storeId, p: productId, o: orderId },
    );
    assert.equal(r.data.a.name, 'Tea');
    assert.equal(r.data.c.data.length, 1);
    assert.equal(r.data.order.confirmedAt, null);
    // A non-null root field's error nulls the whole data, beside a field that resolved.
    const gone = await compare(
      'a not-found beside a found row',
      doc(`query($s: ID!, $p: ID!, $missing: ID! = "${MISSING}") { a: product(storeId: $s, id: $p) { name } gone: product(storeId: $s, id: $missing) { id } }`),
      { s: storeId, p: productId },
    );
    assert.equal(gone.data, null);
    assert.equal(gone.errors?.[0]?.code, 'NOT_FOUND', JSON.stringify(gone));
  });

  test('refused variables and arguments answer the same errors', async () => {
    const { storeId } = ids;
    const q = doc('query($s: ID!, $limit: Int, $status: ProductStatus) { products(storeId: $s, limit: $limit, status: $status) { data { id } } }');
    await compare('a string for an Int', q, { s: storeId, limit: 'ten' });
    await compare('an unknown enum value', q, { s: storeId, status: 'nope' });
    await compare('a missing required variable', q, {});
    await compare('a limit out of range', q, { s: storeId, limit: -5 });
    await compare('a store of nobody', q, { s: MISSING });
    const m = doc('mutation($s: ID!, $input: OrderCreateInput!) { createOrder(storeId: $s, input: $input) { id } }');
    await compare('an order naming a product of no store', m, { s: storeId, input: { customerName: 'X', items: [{ productId: MISSING }] } });
    await compare('an order with a bad price', m, { s: storeId, input: { customerName: 'X', items: [{ name: 'T', price: -1 }] } });
    await compare('an order input with an unknown field', m, { s: storeId, input: { customerName: 'X', items: [], nope: 1 } });
  });

  test('a union answers the same member', async () => {
    // Each run draws a new code: the member and its fields' presence are compared.
    await compare('transferSession', doc('mutation { transferSession { __typename ... on TransferCode { code expiresAt } ... on AuthPayload { token } } }'), {}, (r) => ({
      ...r,
      data: r.data && { transferSession: Object.fromEntries(Object.entries(r.data.transferSession).map(([k, v]) => [k, k === '__typename' ? v : typeof v])) },
    }));
  });
});
