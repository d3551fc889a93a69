import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import 'reflect-metadata';
import { buildSchema, Query, Resolver, Root, Subscription } from 'type-graphql';
import { graphql, parse, subscribe, type GraphQLSchema } from 'graphql';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { gqlSubscribe, STORE_EVENTS } from './sse-client.js';
import { createSchema } from '../src/server/schema.js';
import { pubSub } from '../src/events/pubsub.js';
import { Allow, guardRootFields, guardSubscriptions, PERMISSIONS, policies, rootPolicies } from '../src/core/policy.js';
import type { Ctx } from '../src/core/context.js';
import { issueToken } from '../src/domains/auth/auth.service.js';
import { policiesMarkdown, POLICIES_DOC } from '../scripts/policies.js';

let schema: GraphQLSchema;
let svc: TestService;
let api: Api;

before(async () => {
  schema = await createSchema();
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

/** An OAuth token of the user with the scopes, issued in-process. */
async function oauthToken(userId: string, scopes: string[]): Promise<string> {
  const em = svc.service.deps.orm.em.fork();
  const { token } = issueToken({ em } as unknown as Ctx, userId, { kind: 'oauth', scopes });
  await em.flush();
  return token;
}

const gql = (query: string, variables: Record<string, unknown> = {}, token?: string) => api('POST', '/graphql', { token, body: { query, variables } });

describe('every root field declares a policy', () => {
  test('the whole schema: no Query, Mutation or Subscription field without one', () => {
    const all = rootPolicies(schema);
    assert.ok(all.length > 60, `only ${all.length} root fields found`);
    assert.ok(all.some((f) => f.type === 'Subscription'));
    const missing = all.filter((f) => !f.policy).map((f) => `${f.type}.${f.field}`);
    assert.deepEqual(missing, []);
  });

  test('store policies name a known permission; delegated ones say why', () => {
    for (const { type, field, policy } of rootPolicies(schema)) {
      if (policy?.kind === 'store') assert.ok(policy.permission in PERMISSIONS, `${type}.${field}: ${policy.permission}`);
      if (policy?.kind === 'delegated') assert.ok(policy.reason.length > 10, `${type}.${field}`);
    }
  });

  test('a field without a policy is refused, even for a platform admin; the same field with one answers', async () => {
    let opened = 0;
    async function* ticks() {
      opened++;
      yield 'tick';
    }
    @Resolver()
    class ProbeResolver {
      @Subscription(() => String, { subscribe: () => ticks() })
      undeclaredTicks(@Root() tick: string): string {
        return tick;
      }

      @Allow(policies.user())
      @Subscription(() => String, { subscribe: () => ticks() })
      declaredTicks(@Root() tick: string): string {
        return tick;
      }

      @Query(() => String)
      undeclared(): string {
        return 'leaked';
      }

      @Allow(policies.public())
      @Query(() => String)
      declared(): string {
        return 'ok';
      }
    }
    const probe = await buildSchema({ resolvers: [ProbeResolver], pubSub });
    guardRootFields(probe);
    guardSubscriptions(probe);
    const ctx = {
      actor: { userId: 'usr_x', tokenId: 'tok_x', kind: 'session', scopes: null, appId: null, platformRole: 'admin' },
      authFailure: null,
      memberships: new Map(),
    } as unknown as Ctx;
    const refused = await graphql({ schema: probe, source: '{ undeclared }', contextValue: ctx });
    assert.equal(refused.data, null);
    assert.equal((refused.errors?.[0].originalError as { code?: string })?.code, 'FORBIDDEN');
    assert.match(refused.errors![0].message, /declares no authorization policy/);
    const answered = await graphql({ schema: probe, source: '{ declared }', contextValue: ctx });
    assert.deepEqual(answered.errors, undefined);
    assert.equal((answered.data as { declared: string }).declared, 'ok');

    // Subscriptions are refused when they subscribe: the source stream is never opened.
    const refusedStream = (await subscribe({ schema: probe, document: parse('subscription { undeclaredTicks }'), contextValue: ctx })) as { errors?: Array<{ originalError?: { code?: string } }> };
    assert.equal(refusedStream.errors?.[0].originalError?.code, 'FORBIDDEN');
    assert.equal(opened, 0);
    const stream = (await subscribe({ schema: probe, document: parse('subscription { declaredTicks }'), contextValue: ctx })) as AsyncIterableIterator<{ data?: unknown }>;
    assert.deepEqual({ ...((await stream.next()).value?.data as object) }, { declaredTicks: 'tick' });
    assert.equal(opened, 1);
  });
});

describe('a presented bearer token must be valid everywhere', () => {
  test('unknown, revoked or expired: 401 on /graphql even for { __typename }; no token: 200', async () => {
    const ok = await gql('{ __typename }');
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.__typename, 'Query');
    const revoked = await signup(api);
    assert.equal((await api('POST', '/v1/users/auth/signout', { token: revoked.token })).status, 204);
    const expired = await signup(api);
    await svc.service.deps.orm.em.fork().getConnection().execute(`update auth_tokens set expires_at = now() - interval '1 minute' where user_id = ?`, [expired.user.id]);
    for (const token of ['souk_st_nope', revoked.token, expired.token]) {
      const res = await gql('{ __typename }', {}, token);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.errors[0].extensions.code, 'UNAUTHENTICATED');
      assert.equal(res.body.data, undefined);
    }
    const malformed = await api('POST', '/graphql', { headers: { authorization: 'Basic abc' }, body: { query: '{ __typename }' } });
    assert.equal(malformed.status, 401);
    const get = await api('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { token: 'souk_st_nope', headers: { 'apollo-require-preflight': 'true' } });
    assert.equal(get.status, 401);
    const valid = await signup(api);
    assert.equal((await gql('{ __typename }', {}, valid.token)).status, 200);
  });

  test('the same on /graphql/stream and on public REST routes (the token is checked before the body)', async () => {
    const stream = await fetch(`${svc.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: 'Bearer souk_st_nope', accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    assert.equal(stream.status, 401);
    assert.equal(((await stream.json()) as any).errors[0].extensions.code, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/signin', { token: 'souk_st_nope', body: { email: 'a@example.com', password: 'whatever1' } }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/signup', { token: 'souk_st_nope', body: { bogus: true } }), 401, 'UNAUTHENTICATED');
  });
});

describe('scope ∩ role', () => {
  test("an app token never exceeds its user's current role, and needs the scope too", async () => {
    const s = await ownerWithStore(api);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const product = { name: 'Tea', price: 1.5 };
    const url = `/v1/stores/${s.storeId}/products`;
    assertProblem(await api('POST', url, { token: await oauthToken(viewer.user.id, ['store.products']), body: product }), 403, 'FORBIDDEN');
    assert.equal((await api('POST', url, { token: await oauthToken(editor.user.id, ['store.products']), body: product })).status, 201);
    assertProblem(await api('POST', url, { token: await oauthToken(s.user.id, ['store.orders', 'store.read']), body: product }), 403, 'FORBIDDEN');
    // Settings: an admin role and the store.settings scope, both.
    const admin = await memberWithRole(api, s.token, s.storeId, 'admin');
    assertProblem(await api('PATCH', `/v1/stores/${s.storeId}`, { token: await oauthToken(editor.user.id, ['store.settings']), body: { name: 'X' } }), 403, 'FORBIDDEN');
    assert.equal((await api('PATCH', `/v1/stores/${s.storeId}`, { token: await oauthToken(admin.user.id, ['store.settings']), body: { name: 'X' } })).status, 200);
    // A stranger's token learns nothing, whatever its scopes.
    const stranger = await signup(api);
    assertProblem(await api('GET', url, { token: await oauthToken(stranger.user.id, ['store.read']) }), 404, 'NOT_FOUND');
  });

  test('the storeEvents subscription checks its policy when it subscribes', async () => {
    const s = await ownerWithStore(api);
    const cases: Array<[string, string]> = [
      [await oauthToken(s.user.id, ['store.orders']), 'FORBIDDEN'],
      [(await signup(api)).token, 'NOT_FOUND'],
    ];
    for (const [token, code] of cases) {
      const sub = gqlSubscribe(svc.url, token, STORE_EVENTS, { storeId: s.storeId });
      try {
        await sub.waitFor(1);
        assert.equal((sub.results[0].errors?.[0] as { extensions?: { code?: string } })?.extensions?.code, code, JSON.stringify(sub.results[0]));
        assert.equal(sub.events().length, 0);
      } finally {
        sub.close();
      }
    }
  });
});

describe('leaving a store', () => {
  test('oneself: a session or a token with a write scope, never store.read; others: admin and up', async () => {
    const s = await ownerWithStore(api);
    const members = (path: string) => `/v1/stores/${s.storeId}/members${path}`;
    const a = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const readOnly = await oauthToken(a.user.id, ['store.read']);
    assertProblem(await api('DELETE', members(`/${a.user.id}`), { token: readOnly }), 403, 'FORBIDDEN');
    const writer = await oauthToken(a.user.id, ['store.orders']);
    assert.equal((await api('DELETE', members(`/${a.user.id}`), { token: writer })).status, 204);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}`, { token: a.token }), 404, 'NOT_FOUND');

    const b = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assert.equal((await api('DELETE', members(`/${b.user.id}`), { token: b.token })).status, 204);

    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const c = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assertProblem(await api('DELETE', members(`/${c.user.id}`), { token: editor.token }), 403, 'FORBIDDEN');
    const admin = await memberWithRole(api, s.token, s.storeId, 'admin');
    assertProblem(await api('DELETE', members(`/${c.user.id}`), { token: await oauthToken(admin.user.id, ['store.orders']) }), 403, 'FORBIDDEN');
    assert.equal((await api('DELETE', members(`/${c.user.id}`), { token: await oauthToken(admin.user.id, ['store.settings']) })).status, 204);
    const stranger = await signup(api);
    assertProblem(await api('DELETE', members(`/${stranger.user.id}`), { token: stranger.token }), 404, 'NOT_FOUND');
  });
});

describe('policies in OpenAPI and docs', () => {
  test('each route shows its policy and the scopes of its permission, derived from the field', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    const products = '/v1/stores/{storeId}/products';
    assert.equal(op(products, 'get')['x-souk-policy'], 'store: store.read');
    assert.deepEqual(op(products, 'get').security, [{ bearer: ['store.read'] }]);
    assert.equal(op(products, 'post')['x-souk-policy'], 'store: products.write');
    assert.deepEqual(op(products, 'post').security, [{ bearer: ['store.products'] }]);
    const webhooks = '/v1/stores/{storeId}/integrations/webhooks';
    assert.deepEqual(op(webhooks, 'get').security, PERMISSIONS['webhooks.read'].scopes.map((s) => ({ bearer: [s] })));
    assert.deepEqual(op('/v1/users/auth/signup', 'post').security, []);
    assert.equal(op('/v1/users/auth/signup', 'post')['x-souk-policy'], 'public');
    assert.deepEqual(op('/v1/stores', 'post').security, [{ bearer: ['store.settings'] }]);
    assert.ok(op('/v1/stores/{storeId}/members/{userId}', 'delete')['x-souk-policy'].startsWith('delegated: '));
    // The event stream is no table route, and declares the policy it checks the same way.
    assert.equal(op('/v1/stores/{storeId}/events/stream', 'get')['x-souk-policy'], 'store: store.read');
    assert.deepEqual(op('/v1/stores/{storeId}/events/stream', 'get').security, op(products, 'get').security);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, o] of Object.entries(item)) {
        if (o['x-souk-ingress']) continue;
        assert.equal(typeof o['x-souk-policy'], 'string', `${method} ${path}`);
        assert.ok(Array.isArray(o.security), `${method} ${path}`);
        assert.notEqual(o['x-souk-policy'], 'none (refused)', `${method} ${path}`);
      }
    }
  });

  test('docs/policies.md is what `npm run policies -- --write` prints', () => {
    assert.equal(readFileSync(POLICIES_DOC, 'utf8'), policiesMarkdown(schema), 'docs/policies.md is out of date: run npm run policies -- --write');
  });
});
