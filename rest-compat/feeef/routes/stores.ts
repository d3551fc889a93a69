import { invalid } from '../../../src/core/errors.js';
import { requireMember } from '../locate.js';
import { pageArgs, pageList, scan, SCAN_LIMIT } from '../pages.js';
import { BY_ID, assertById, PAGE_PARAMS, type Call, type FeeefRoute, type Param } from '../route.js';
import { anyObj, arr, input, int, nstr, num, obj, oneOf, pageOf, str } from '../schema.js';
import { countsByDay, INVITE, inviteSchema, LOR, lorSchema, mapInput, MEMBER, memberSchema, STORE, storeInput, storeSchema, toInvite, toMember, toSoukRole, toStore } from '../shapes.js';
import { parseInstant } from '../../../src/lib/dates.js';

/**
 * Stores, their members, invites and analytics. A Feeef store's `userId` is its owner: the caller
 * when the caller owns it, null otherwise (Souk shows a store's owner in its member list).
 */

const toFeeefStore = (call: Call) => (s: Record<string, any>) => toStore(s, s.role === 'owner' ? (call.ctx.actor?.userId ?? null) : null);

const STORE_LOR = `query($storeId: ID!, $from: String, $to: String, $interval: String, $tz: String) { storeLor(storeId: $storeId, from: $from, to: $to, interval: $interval, tz: $tz) { lor { ${LOR} } } }`;
const ORDER_COUNTS = 'query($storeId: ID!) { orderCounts(storeId: $storeId) { total data { slug count } } }';
const PRODUCTS = 'query($storeId: ID!, $limit: Int, $cursor: String) { products(storeId: $storeId, limit: $limit, cursor: $cursor) { data { id } nextCursor } }';
const GET_STORE = `query($id: ID!) { store(id: $id) { ${STORE} } }`;
const MEMBERS = `query($storeId: ID!) { storeMembers(storeId: $storeId) { ${MEMBER} } }`;

const LOR_PARAMS: Record<string, Param> = {
  from: { type: 'string', description: 'ISO date or date-time (inclusive)' },
  to: { type: 'string', description: 'ISO date or date-time (exclusive)' },
  interval: { type: 'string', description: 'day (default), week or month' },
  tz: { type: 'string', description: 'IANA time zone, default UTC' },
};

const lorArgs = (call: Call) => ({ from: call.query.string('from'), to: call.query.string('to'), interval: call.query.string('interval'), tz: call.query.string('tz') });

/** A member with Feeef's partial PUT: `role` changes it, name and metadata are not kept by Souk. */
async function member(call: Call, storeId: string, userId: string) {
  const found = ((await call.run({ storeId }, { operation: MEMBERS })) as Array<Record<string, any>>).find((m) => m.userId === userId);
  if (!found) throw invalid('memberId', 'is not a member of this store');
  return found;
}

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/stores',
    summary: 'The stores the caller belongs to (user / user_id must be the caller), a page at a time',
    operation: `query($limit: Int, $cursor: String) { stores(limit: $limit, cursor: $cursor) { data { ${STORE} } nextCursor } }`,
    query: { ...PAGE_PARAMS, user: { type: 'string' }, user_id: { type: 'string' } },
    response: pageOf(storeSchema),
    handle: async (call) => {
      for (const k of ['user', 'user_id']) {
        const v = call.query.string(k);
        if (v !== undefined && v !== call.ctx.actor?.userId) throw invalid(k, "must be the caller's id: Souk lists the stores you belong to");
      }
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ cursor, limit }), { map: toFeeefStore(call) });
    },
  },
  {
    method: 'POST',
    path: '/stores',
    summary: 'Create a store; the caller becomes its owner (storefront fields are accepted, not kept)',
    operation: `mutation($input: StoreCreateInput!) { createStore(input: $input) { ${STORE} } }`,
    status: 201,
    body: input({ name: str, currency: str, slug: str, title: str, description: str, metadata: anyObj }, ['name']),
    response: storeSchema,
    handle: async (call) => toFeeefStore(call)(await call.run({ input: mapInput(call.body, storeInput) })),
  },
  {
    method: 'GET',
    path: '/stores/{id}',
    summary: 'Show a store',
    operation: GET_STORE,
    query: BY_ID,
    response: storeSchema,
    handle: async (call) => {
      assertById(call.query);
      return toFeeefStore(call)(await call.run({ id: call.params.id }));
    },
  },
  {
    method: 'PUT',
    path: '/stores/{id}',
    summary: "Change a store's name or currency (partial; storefront fields are accepted, not kept)",
    operation: `mutation($id: ID!, $input: StoreUpdateInput!) { updateStore(id: $id, input: $input) { ${STORE} } }`,
    body: input({ name: str, currency: str, slug: str, title: str, description: str, metadata: anyObj }),
    response: storeSchema,
    handle: async (call) => {
      await requireMember(call, call.params.id, call.params.id);
      return toFeeefStore(call)(await call.run({ id: call.params.id, input: mapInput(call.body, storeInput) }));
    },
  },
  {
    method: 'DELETE',
    path: '/stores/{id}',
    summary: 'Delete a store and everything in it',
    operation: 'mutation($id: ID!) { deleteStore(id: $id) }',
    query: BY_ID,
    status: 204,
    handle: async (call) => {
      assertById(call.query);
      await call.run({ id: call.params.id });
    },
  },
  {
    method: 'GET',
    path: '/stores/{id}/summary',
    summary:
      "Orders and revenue (completed orders) between from and to (default: since the store's creation), products, and every order by status slug",
    operation: STORE_LOR,
    operations: [GET_STORE, ORDER_COUNTS, PRODUCTS],
    query: { from: LOR_PARAMS.from, to: LOR_PARAMS.to },
    response: obj({ ordersCount: int, productsCount: int, revenue: num, ordersByStatus: { type: 'object', additionalProperties: { type: 'integer' } } }),
    handle: async (call) => {
      const storeId = call.params.id;
      const store = await call.run({ id: storeId }, { operation: GET_STORE });
      const from = call.query.string('from') ?? String(store.createdAt).slice(0, 10);
      const { lor } = await call.run({ storeId, from, to: call.query.string('to'), interval: 'month' });
      const counts = await call.run({ storeId }, { operation: ORDER_COUNTS });
      const products = await scan((cursor, limit) => call.run({ storeId, cursor, limit }, { operation: PRODUCTS }), SCAN_LIMIT);
      return {
        ordersCount: lor.totals.orders,
        productsCount: products.rows.length,
        revenue: lor.totals.revenue,
        ordersByStatus: Object.fromEntries((counts.data as Array<{ slug: string; count: number }>).map((c) => [c.slug, c.count])),
        from: lor.from,
        to: lor.to,
        ...(products.complete ? {} : { productsCountExact: false }),
      };
    },
  },
  {
    method: 'GET',
    path: '/stores/{id}/chart',
    summary: 'Orders per day over the last 8 days: {orders: {date: count}}',
    operation: STORE_LOR,
    query: LOR_PARAMS,
    response: obj({ orders: { type: 'object', additionalProperties: { type: 'integer' } } }),
    handle: async (call) => ({ orders: countsByDay((await call.run({ storeId: call.params.id, ...lorArgs(call) })).lor, 'orders') }),
  },
  {
    method: 'GET',
    path: '/stores/{id}/analytics/lor',
    summary: 'The lite orders report of the store: {lor} (8 UTC days by default; from, to, interval, tz as on /v1)',
    operation: STORE_LOR,
    query: LOR_PARAMS,
    response: lorSchema,
    handle: async (call) => call.run({ storeId: call.params.id, ...lorArgs(call) }),
  },
  {
    method: 'POST',
    path: '/stores/{id}/members',
    summary: 'Add an existing account as a member by email (role editor, viewer or confermer; name, metadata and scopes are not kept)',
    operation: `mutation($storeId: ID!, $input: MemberAddInput!) { addStoreMember(storeId: $storeId, input: $input) { ${MEMBER} } }`,
    status: 201,
    body: input({ email: str, role: oneOf('editor', 'viewer', 'confermer', 'admin', 'owner'), name: nstr, metadata: anyObj, scopes: arr(str) }, ['email', 'role']),
    response: memberSchema,
    handle: async (call) => {
      await requireMember(call, call.params.id, call.params.id);
      const mapped = mapInput(call.body, { email: 'email', role: (v, out) => (out.role = toSoukRole(v)), name: null, metadata: null, scopes: null });
      return toMember(await call.run({ storeId: call.params.id, input: mapped }));
    },
  },
  {
    method: 'PUT',
    path: '/stores/{id}/members/{memberId}',
    summary: "Change a member's role (partial: without role the member is answered unchanged)",
    operation: `mutation($storeId: ID!, $userId: ID!, $input: MemberUpdateInput!) { updateStoreMember(storeId: $storeId, userId: $userId, input: $input) { ${MEMBER} } }`,
    operations: [MEMBERS],
    body: input({ role: oneOf('editor', 'viewer', 'confermer', 'admin', 'owner'), name: nstr, metadata: anyObj, scopes: arr(str) }),
    response: memberSchema,
    handle: async (call) => {
      await requireMember(call, call.params.id, call.params.id);
      const mapped = mapInput(call.body, { role: (v, out) => (out.role = toSoukRole(v)), name: null, metadata: null, scopes: null });
      if (mapped.role === undefined) return toMember(await member(call, call.params.id, call.params.memberId));
      return toMember(await call.run({ storeId: call.params.id, userId: call.params.memberId, input: mapped }));
    },
  },
  {
    method: 'DELETE',
    path: '/stores/{id}/members/{memberId}',
    summary: 'Remove a member (owners and admins; a member may leave)',
    operation: 'mutation($storeId: ID!, $userId: ID!) { removeStoreMember(storeId: $storeId, userId: $userId) }',
    status: 204,
    handle: async (call) => {
      await call.run({ storeId: call.params.id, userId: call.params.memberId });
    },
  },
  {
    method: 'GET',
    path: '/stores/{id}/invites',
    summary: "The store's invites, newest first (at most 200; owners and admins); status filters them",
    operation: `query($storeId: ID!, $status: StoreInviteStatus) { storeInvites(storeId: $storeId, status: $status) { ${INVITE} } }`,
    query: { status: { type: 'string', description: 'pending, accepted, revoked or expired' } },
    response: arr(inviteSchema),
    handle: async (call) => {
      await requireMember(call, call.params.id, call.params.id);
      const status = call.query.string('status');
      if (status !== undefined && !['pending', 'accepted', 'revoked', 'expired'].includes(status)) throw invalid('status', 'must be one of pending, accepted, revoked, expired');
      return ((await call.run({ storeId: call.params.id, status })) as Array<Record<string, any>>).map(toInvite);
    },
  },
  {
    method: 'POST',
    path: '/stores/{id}/invites',
    summary: 'Mail an invitation to join the store (owners and admins; role editor, viewer or confermer; expiresAt at most 30 days ahead, 7 by default; scopes are not kept)',
    operation: `mutation($storeId: ID!, $input: StoreInviteCreateInput!) { createStoreInvite(storeId: $storeId, input: $input) { ${INVITE} } }`,
    status: 201,
    body: input({ email: str, role: oneOf('editor', 'viewer', 'confermer', 'admin', 'owner'), expiresAt: str, metadata: anyObj, scopes: arr(str) }, ['email', 'role']),
    response: inviteSchema,
    handle: async (call) => {
      await requireMember(call, call.params.id, call.params.id);
      const mapped = mapInput(call.body, {
        email: 'email',
        role: (v, out) => (out.role = toSoukRole(v)),
        expiresAt: (v, out) => {
          if (v === null) return;
          if (typeof v !== 'string') throw invalid('expiresAt', 'must be an ISO 8601 date-time');
          out.expiresAt = parseInstant(v, 'expiresAt').toISOString();
        },
        metadata: 'metadata',
        scopes: null,
      });
      return toInvite(await call.run({ storeId: call.params.id, input: mapped }));
    },
  },
  {
    method: 'GET',
    path: '/stores/{id}/invites/{inviteId}',
    summary: 'Show an invite (owners and admins)',
    operation: `query($storeId: ID!, $id: ID!) { storeInvite(storeId: $storeId, id: $id) { ${INVITE} } }`,
    response: inviteSchema,
    handle: async (call) => toInvite(await call.run({ storeId: call.params.id, id: call.params.inviteId })),
  },
  {
    method: 'DELETE',
    path: '/stores/{id}/invites/{inviteId}',
    summary: 'Revoke an invite: its link stops working (owners and admins; an accepted invite is 409)',
    operation: `mutation($storeId: ID!, $id: ID!) { revokeStoreInvite(storeId: $storeId, id: $id) { id } }`,
    status: 204,
    handle: async (call) => {
      await call.run({ storeId: call.params.id, id: call.params.inviteId });
    },
  },
  {
    method: 'POST',
    path: '/stores/{id}/invites/{inviteId}/accept',
    summary:
      "Accept an invite with the token from its mail: the signed-in account, which must have the invite's email (403 otherwise), becomes a member; a wrong token is 404, an accepted, revoked or expired invite 409",
    operation: `mutation($storeId: ID!, $id: ID!, $token: String!) { acceptStoreInvite(storeId: $storeId, id: $id, token: $token) { ${MEMBER} } }`,
    body: input({ token: str }, ['token']),
    response: memberSchema,
    handle: async (call) => toMember(await call.run({ storeId: call.params.id, id: call.params.inviteId, token: call.body.token })),
  },
];
