import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, getNamedType, isEnumType, isListType, isNonNullType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { createSchema } from '../src/server/schema.js';
import { policyOf } from '../src/core/policy.js';

let svc: TestService;
let api: Api;
let doc: any;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;
const schema: GraphQLSchema = buildSchema(readFileSync('schema/schema.graphql', 'utf8'));

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  doc = (await api('GET', '/v1/openapi.json')).body;
  owner = await ownerWithStore(api);
});
after(() => svc.close());

const field = (type: string, name: string): GraphQLField<unknown, unknown> => {
  const t = schema.getType(type) as { getFields(): Record<string, GraphQLField<unknown, unknown>> } | undefined;
  const f = t?.getFields()[name];
  assert.ok(f, `${type}.${name} exists`);
  return f;
};
const enumOf = (type: string, name: string): string[] => {
  const named = getNamedType(field(type, name).type);
  assert.ok(isEnumType(named), `${type}.${name} is an enum, not ${named.name}`);
  return named.getValues().map((v) => v.name);
};

describe('closed value sets are GraphQL enums named by their wire values', () => {
  test('the sets integrators asked for', () => {
    assert.deepEqual(enumOf('OrderStatus', 'kind').sort(), ['cancelled', 'confirmed', 'fulfilled', 'new', 'other', 'rejected', 'returned']);
    assert.deepEqual(enumOf('StoreMember', 'role').sort(), ['admin', 'editor', 'owner', 'viewer']);
    assert.deepEqual(enumOf('Store', 'role').sort(), ['admin', 'editor', 'owner', 'viewer']);
    assert.deepEqual(enumOf('Webhook', 'events').sort(), ['orderCreated', 'orderDeleted', 'orderUpdated', 'productCreated', 'productDeleted', 'productUpdated']);
    assert.deepEqual(enumOf('WebhookDelivery', 'event').sort(), enumOf('Webhook', 'events').sort());
    assert.deepEqual(enumOf('WebhookDelivery', 'status').sort(), ['failed', 'success']);
    assert.deepEqual(enumOf('Product', 'status').sort(), ['active', 'archived', 'draft']);
    assert.ok(enumOf('StoreEvent', 'event').includes('purchaseOrderUpdated'));
  });

  test('and the other closed sets of CONTRACT-2', () => {
    // CONTRACT-2's five, plus partially_paid: payments that collected less than the total (docs/payments.md).
    assert.deepEqual(enumOf('Order', 'paymentStatus').sort(), ['paid', 'partially_paid', 'partially_refunded', 'pending', 'refunded', 'unpaid']);
    assert.deepEqual(enumOf('Order', 'shippingType').sort(), ['desk', 'home', 'pickup']);
    assert.ok(enumOf('Payment', 'status').includes('requires_action'));
    assert.ok(enumOf('Parcel', 'status').includes('out_for_delivery'));
    assert.deepEqual(enumOf('Integration', 'status').sort(), ['active', 'disconnected', 'error', 'unverified']);
    assert.deepEqual(enumOf('PurchaseOrder', 'status').sort(), ['cancelled', 'draft', 'partial', 'received', 'sent']);
    for (const [type, name] of [['StatusCreateInput', 'kind'], ['MemberAddInput', 'role'], ['ProductCreateInput', 'status'], ['OrderCreateInput', 'shippingType']]) enumOf(type, name);
  });

  test('the contract signatures stay as CONTRACT.md §7/§8 spell them', () => {
    const q = schema.getQueryType()!.getFields();
    assert.equal(String(q.store.type), 'Store!');
    assert.deepEqual(q.store.args.map((a) => `${a.name}: ${a.type}`), ['id: ID!']);
    assert.equal(String(q.webhooks.type), '[Webhook!]!');
    assert.deepEqual(q.webhooks.args.map((a) => `${a.name}: ${a.type}`), ['storeId: ID!']);
    const sub = schema.getSubscriptionType()!.getFields().storeEvents;
    assert.deepEqual(sub.args.map((a) => `${a.name}: ${a.type}`).sort(), ['events: [String!]', 'storeId: ID!']);
    // Webhook inputs keep strings: legacy spellings (`order.created`) are accepted there.
    const events = field('WebhookCreateInput', 'events').type;
    assert.ok(!isNonNullType(events) && isListType(events) && getNamedType(events).name === 'String');
  });
});

describe('one spelling per concept', () => {
  test("a store-scoped root field names its store argument storeId (the store's own fields: id)", async () => {
    const live = await createSchema();
    const odd: string[] = [];
    for (const root of [live.getQueryType()!, live.getMutationType()!, live.getSubscriptionType()!]) {
      for (const f of Object.values(root.getFields())) {
        const policy = policyOf(f);
        // The storefront's fields name a store by id or slug: one spelling of that concept, `store`.
        if (policy?.kind === 'storefront') {
          if (policy.arg !== 'store' || !f.args.some((a) => a.name === 'store')) odd.push(`${root.name}.${f.name}(${policy.arg})`);
          continue;
        }
        const storeArg = policy?.kind === 'store' ? (policy.arg ?? 'storeId') : f.args.find((a) => /store/i.test(a.name))?.name;
        if (!storeArg) continue;
        const own = ['store', 'updateStore', 'deleteStore'].includes(f.name);
        if (storeArg !== (own ? 'id' : 'storeId') || !f.args.some((a) => a.name === storeArg)) odd.push(`${root.name}.${f.name}(${storeArg})`);
      }
    }
    assert.deepEqual(odd, []);
  });

  test('webhooks are one list field; a webhook and its history name it alike', () => {
    const q = schema.getQueryType()!.getFields();
    assert.equal(q.webhookList, undefined);
    assert.deepEqual(q.webhook.args.map((a) => a.name).sort(), ['id', 'storeId']);
    assert.deepEqual(q.webhookHistory.args.map((a) => a.name).sort(), ['storeId', 'webhookId']);
  });
});

describe('the wire is unchanged', () => {
  test('REST and GraphQL answer the same lowercase and camelCase strings', async () => {
    const status = await api('POST', `/v1/stores/${owner.storeId}/statuses`, { token: owner.token, body: { name: 'Fresh', kind: 'new' } });
    assert.equal(status.status, 201, status.text);
    assert.equal(status.body.kind, 'new');
    const members = await api('GET', `/v1/stores/${owner.storeId}/members`, { token: owner.token });
    assert.equal(members.body.data[0].role, 'owner');
    const gql = await api('POST', '/graphql', {
      token: owner.token,
      body: { query: 'query($id: ID!, $s: ProductStatus) { store(id: $id) { role } products(storeId: $id, status: $s) { data { status } } statuses(storeId: $id) { kind } }', variables: { id: owner.storeId, s: 'active' } },
    });
    assert.equal(gql.status, 200, gql.text);
    assert.equal(gql.body.data.store.role, 'owner');
    assert.ok(gql.body.data.statuses.some((s: { kind: string }) => s.kind === 'new'));
  });

  test('an enum literal works in a GraphQL document; a quoted string there does not', async () => {
    const ok = await api('POST', '/graphql', { token: owner.token, body: { query: `{ products(storeId: "${owner.storeId}", status: draft) { data { id } } }` } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.errors, undefined, ok.text);
    const quoted = await api('POST', '/graphql', { token: owner.token, body: { query: `{ products(storeId: "${owner.storeId}", status: "draft") { data { id } } }` } });
    assert.equal(quoted.body.errors?.[0]?.extensions?.code, 'BAD_REQUEST', quoted.text);
  });
});

describe('a value outside the set is 400 at its field, saying what it takes', () => {
  test('in a REST body', async () => {
    for (const kind of ['newish', 5, 'NEW']) {
      const res = await api('POST', `/v1/stores/${owner.storeId}/statuses`, { token: owner.token, body: { name: 'Bad', kind } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [{ path: 'kind', message: 'must be one of new, confirmed, rejected, fulfilled, cancelled, returned, other' }], `${kind}`);
      assert.ok(!res.text.includes('newish'), 'the value given is not echoed');
    }
    const role = await api('POST', `/v1/stores/${owner.storeId}/members`, { token: owner.token, body: { email: 'x@example.com', role: 'root' } });
    assertProblem(role, 400, 'VALIDATION_FAILED');
    assert.deepEqual(role.body.errors, [{ path: 'role', message: 'must be one of owner, admin, editor, viewer' }]);
  });

  test('in another set', async () => {
    const res = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada', shippingType: 'drone' } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors, [{ path: 'shippingType', message: 'must be one of home, desk, pickup' }]);
  });

  test('in a query string', async () => {
    const res = await api('GET', `/v1/stores/${owner.storeId}/products?status=gone`, { token: owner.token });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors, [{ path: 'status', message: 'must be one of draft, active, archived' }]);
    const ok = await api('GET', `/v1/stores/${owner.storeId}/products?status=archived`, { token: owner.token });
    assert.equal(ok.status, 200, ok.text);
  });

  test('over GraphQL variables, with the same field path', async () => {
    const res = await api('POST', '/graphql', {
      token: owner.token,
      body: { query: 'mutation($id: ID!, $input: StatusCreateInput!) { createStatus(storeId: $id, input: $input) { id } }', variables: { id: owner.storeId, input: { name: 'X', kind: 'bogus' } } },
    });
    assert.equal(res.body.errors?.[0]?.extensions?.code, 'VALIDATION_FAILED', res.text);
    assert.deepEqual(res.body.errors[0].extensions.errors, [{ path: 'input.kind', message: 'must be one of new, confirmed, rejected, fulfilled, cancelled, returned, other' }]);
  });
});

describe('OpenAPI', () => {
  /** The document names shared shapes once under components; follow a `$ref` to what it names. */
  const deref = (node: any): any => {
    while (node?.$ref) node = node.$ref.slice(2).split('/').reduce((at: any, key: string) => at[key], doc);
    return node;
  };
  const okSchema = (path: string, method: string, status = '200') => deref(deref(deref(doc.paths[path][method].responses[status]).content['application/json'].schema));

  test('enums are string schemas listing their values, nullable ones with null', () => {
    const product = okSchema('/v1/stores/{storeId}/products/{productId}', 'get');
    assert.deepEqual({ type: deref(product.properties.status).type, enum: deref(product.properties.status).enum }, { type: 'string', enum: ['draft', 'active', 'archived'] });
    const order = okSchema('/v1/stores/{storeId}/orders/{orderId}', 'get');
    assert.deepEqual(deref(order.properties.shippingType).type, ['string', 'null']);
    assert.deepEqual(deref(order.properties.shippingType).enum, ['home', 'desk', 'pickup', null]);
    assert.deepEqual(deref(order.properties.paymentStatus).enum, ['unpaid', 'pending', 'partially_paid', 'paid', 'partially_refunded', 'refunded']);
    const hook = okSchema('/v1/stores/{storeId}/integrations/webhooks/{webhookId}', 'get');
    assert.deepEqual(deref(hook.properties.events.items).enum, ['orderCreated', 'orderUpdated', 'orderDeleted', 'productCreated', 'productUpdated', 'productDeleted']);
  });

  test('input enums and enum query parameters list their values too', () => {
    const body = doc.paths['/v1/stores/{storeId}/statuses'].post.requestBody.content['application/json'].schema;
    assert.ok(deref(deref(body).properties.kind).enum.includes('returned'));
    const param = doc.paths['/v1/stores/{storeId}/products'].get.parameters.map(deref).find((p: { name: string }) => p.name === 'status');
    assert.deepEqual(deref(param.schema).enum, ['draft', 'active', 'archived']);
  });

  test('timestamps are date-times', () => {
    const order = okSchema('/v1/stores/{storeId}/orders/{orderId}', 'get');
    for (const k of ['createdAt', 'updatedAt']) assert.equal(deref(order.properties[k]).format, 'date-time', k);
    assert.equal(deref(okSchema('/v1/stores/{storeId}', 'get').properties.createdAt).format, 'date-time');
  });
});
