import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, ownerWithStore, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';
import { sleep, startReceiver, type Receiver } from './receiver.js';

/** GraphQL cost (issue 10): refusals are HTTP 400 with the code BAD_REQUEST, before anything runs. */
let svc: TestService;
let api: Api;
let rx: Receiver;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;
before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
  api = client(svc.url);
  rx = await startReceiver();
  owner = await ownerWithStore(api);
});
after(async () => {
  await rx.close();
  await svc.close();
});

const gql = (query: string, variables?: Record<string, unknown>) => api('POST', '/graphql', { token: owner.token, body: { query, variables } });
const short = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 400)}`;

function assertRefused(res: ApiResponse, pattern: RegExp) {
  assert.equal(res.status, 400, short(res));
  assert.equal(res.body.data, undefined, short(res));
  const codes = res.body.errors.map((e: any) => e.extensions.code);
  assert.ok(codes.every((c: string) => c === 'BAD_REQUEST'), short(res));
  assert.ok(res.body.errors.some((e: any) => pattern.test(e.message)), short(res));
}

const aliases = (n: number, field: (i: number) => string) => Array.from({ length: n }, (_, i) => `a${i}: ${field(i)}`).join('\n');

test('100 aliased testWebhookUrl: refused, nothing sent; two in one request too; one is fine', async () => {
  const url = rx.url.replace('/hook', `/cost/${owner.storeId}`);
  const mine = (r: { path: string }) => r.path.startsWith(`/cost/${owner.storeId}`);
  const call = `testWebhookUrl(storeId: "${owner.storeId}", input: { url: "${url}" }) { status }`;
  assertRefused(await gql(`mutation { ${aliases(100, () => call)} }`), /at most 1 field that reaches outside/);
  assertRefused(await gql(`mutation { ${aliases(2, () => call)} }`), /testWebhookUrl/);
  const hook = await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name: 'H', url } });
  const both = `mutation { a: testWebhookUrl(storeId: "${owner.storeId}", input: { url: "${url}" }) { status } b: testWebhook(storeId: "${owner.storeId}", id: "${hook.body.id}") { status } }`;
  assertRefused(await gql(both), /testWebhook/);
  await sleep(500);
  assert.equal(rx.received.filter(mine).length, 0);
  const one = await gql(`mutation { ${call} }`);
  assert.equal(one.status, 200, short(one));
  assert.equal(one.body.data.testWebhookUrl.status, 'success');
  assert.equal(rx.received.filter(mine).length, 1);
});

test('300 aliases of products(limit: 200), 5,000 aliased store: refused', async () => {
  const products = `products(storeId: "${owner.storeId}", limit: 200) { data { id name price metadata } }`;
  assertRefused(await gql(`{ ${aliases(300, () => products)} }`), /tokens/);
  assertRefused(await gql(`{ ${aliases(21, () => `store(id: "${owner.storeId}") { id }`)} }`), /[Aa]liases limit of 20/);
  const started = Date.now();
  assertRefused(await gql(`{ ${aliases(5000, () => `store(id: "${owner.storeId}") { id name }`)} }`), /tokens/);
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
});

test('cost counts limit arguments as list sizes', async () => {
  const fields = 'id storeId name slug price sku stock allowBackorder status metadata createdAt updatedAt';
  const list = (limit: string) => `products(storeId: "${owner.storeId}", limit: ${limit}) { data { ${fields} } nextCursor }`;
  // One page of 200 fits; ten aliased pages of 200 do not, ten pages of 5 do.
  const one = await gql(`{ ${list('200')} }`);
  assert.equal(one.status, 200, short(one));
  assertRefused(await gql(`{ ${aliases(10, () => list('200'))} }`), /costs \d+, over the limit of 20000/);
  const small = await gql(`{ ${aliases(10, () => list('5'))} }`);
  assert.equal(small.status, 200, short(small));
  // A variable's value is not known when the document is checked: its default, else the page maximum.
  assertRefused(await gql(`query($n: Int) { ${aliases(10, () => list('$n'))} }`, { n: 5 }), /costs/);
  const byDefault = await gql(`query($n: Int = 5) { ${aliases(10, () => list('$n'))} }`, { n: 5 });
  assert.equal(byDefault.status, 200, short(byDefault));
  // An omitted limit counts as the default page of 50.
  const order = 'id storeId customerName customerPhone items { productId name quantity price } total currency status statusId rejectReason shippingMethodId shippingType shippingCost promoCode discount paymentStatus paymentMethod confirmedAt landingPageId metadata createdAt updatedAt';
  assertRefused(await gql(`{ ${aliases(15, () => `orders(storeId: "${owner.storeId}") { data { ${order} } }`)} }`), /costs/);
  const fewer = await gql(`{ ${aliases(15, () => `orders(storeId: "${owner.storeId}", limit: 10) { data { ${order} } }`)} }`);
  assert.equal(fewer.status, 200, short(fewer));
});

test('depth and token limits', async () => {
  let nested = 'name';
  for (let i = 0; i < 12; i++) nested = `ofType { ${nested} }`;
  assertRefused(await gql(`{ __type(name: "Query") { fields { type { ${nested} } } } }`), /[Dd]epth limit/);
  const manyTokens = `{ ${Array.from({ length: 6000 }, () => '__typename').join(' ')} }`;
  const res = await gql(manyTokens);
  assert.equal(res.status, 400, short(res));
  assert.ok(res.body.errors.every((e: any) => e.extensions.code === 'BAD_REQUEST'), short(res));
  assert.match(res.body.errors[0].message, /more that 5000 tokens/);
});

test('ordinary requests, introspection included, still pass', async () => {
  const res = await gql(`{ store(id: "${owner.storeId}") { id name } me { id } }`);
  assert.equal(res.status, 200, short(res));
  const intro = await gql(`{ __schema { queryType { name } types { name kind fields { name args { name type { name kind ofType { name kind ofType { name kind } } } } } } } }`);
  assert.equal(intro.status, 200, short(intro));
  const rest = await api('GET', `/v1/stores/${owner.storeId}/products?limit=200`, { token: owner.token });
  assert.equal(rest.status, 200);
});

test('an error keeps its code however often its operation ran (compiled operations answer as interpreted ones)', async () => {
  const stranger = await ownerWithStore(api);
  const query = 'query($id: ID!) { store(id: $id) { id name } }';
  for (let i = 0; i < 5; i++) {
    const res = await api('POST', '/graphql', { token: stranger.token, body: { query, variables: { id: owner.storeId } } });
    assert.deepEqual(
      res.body.errors?.map((e: any) => e.extensions.code),
      ['NOT_FOUND'],
      `run ${i + 1}: ${short(res)}`,
    );
  }
});
