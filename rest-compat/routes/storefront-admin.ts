import { group, route } from '../route.js';

const KEY = 'id name createdAt';
const BLOCK = 'id kind value note createdAt';
const keys = '/v1/stores/{storeId}/storefront/keys';
const blocklist = '/v1/stores/{storeId}/storefront/blocklist';

/** What store members manage of the storefront's defences (CONTRACT-3 §17.2, §17.7). */
export default group('storefront-admin', [
  route({
    method: 'GET',
    path: keys,
    summary: "The store's storefront server keys, newest first, without the keys themselves (admins)",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { storefrontKeys(storeId: $storeId, limit: $limit, cursor: $cursor) { data { ${KEY} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: keys,
    summary: 'Create a storefront server key {name}: the answer shows the key (sfk_…) this once (admins)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: StorefrontKeyCreateInput!) { createStorefrontKey(storeId: $storeId, input: $input) { ${KEY} key } }`,
  }),
  route({
    method: 'DELETE',
    path: `${keys}/{keyId}`,
    summary: 'Revoke a storefront server key: refused from now on by every replica (admins)',
    status: 204,
    operation: 'mutation($storeId: ID!, $keyId: ID!) { deleteStorefrontKey(storeId: $storeId, id: $keyId) }',
  }),
  route({
    method: 'GET',
    path: blocklist,
    summary: "The store's storefront blocklist, newest first (editors and above)",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { storefrontBlocklist(storeId: $storeId, limit: $limit, cursor: $cursor) { data { ${BLOCK} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: blocklist,
    summary: "Block a phone (read in the store's phone region, kept in E.164) or an IP address or range, v4 or v6 (editors and above)",
    status: 201,
    operation: `mutation($storeId: ID!, $input: StorefrontBlockInput!) { createStorefrontBlocklistEntry(storeId: $storeId, input: $input) { ${BLOCK} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${blocklist}/{entryId}`,
    summary: 'Remove a blocklist entry (editors and above)',
    status: 204,
    operation: 'mutation($storeId: ID!, $entryId: ID!) { deleteStorefrontBlocklistEntry(storeId: $storeId, id: $entryId) }',
  }),
]);
