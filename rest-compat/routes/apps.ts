import { group, route } from '../route.js';
import { APP } from './fragments.js';

export default group('apps', [
  route({
    method: 'GET',
    path: '/v1/apps',
    summary: "The caller's OAuth apps",
    operation: `query($limit: Int, $cursor: String) { apps(limit: $limit, cursor: $cursor) { data { ${APP} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/apps',
    summary: 'Register an OAuth app; the client secret is in this response only',
    status: 201,
    operation: `mutation($input: AppCreateInput!) { createApp(input: $input) { ${APP} clientSecret } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/apps/{id}',
    summary: 'Show an app',
    operation: `query($id: ID!) { app(id: $id) { ${APP} } }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/apps/{id}',
    summary: 'Change an app (its owner)',
    operation: `mutation($id: ID!, $input: AppUpdateInput!) { updateApp(id: $id, input: $input) { ${APP} } }`,
  }),
  route({
    method: 'DELETE',
    path: '/v1/apps/{id}',
    summary: 'Delete an app; its tokens stop working',
    status: 204,
    operation: `mutation($id: ID!) { deleteApp(id: $id) }`,
  }),
  route({
    method: 'POST',
    path: '/v1/apps/{id}/regenerate-secret',
    summary: 'A new client secret; the old one stops working',
    operation: `mutation($id: ID!) { regenerateAppSecret(id: $id) { ${APP} clientSecret } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/apps/{id}/public-data',
    summary: "The app's public data",
    operation: `query($id: ID!) { appPublicData(id: $id) }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/apps/{id}/public-data',
    summary: "Replace the app's public data (its owner; 64 KiB max)",
    body: 'data',
    operation: `mutation($id: ID!, $data: JSONObject!) { setAppPublicData(id: $id, data: $data) }`,
  }),
  route({
    method: 'GET',
    path: '/v1/apps/{id}/private-data',
    summary: "The app's private data (its owner or its own tokens)",
    operation: `query($id: ID!) { appPrivateData(id: $id) }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/apps/{id}/private-data',
    summary: "Replace the app's private data (its owner or its own tokens; 64 KiB max)",
    body: 'data',
    operation: `mutation($id: ID!, $data: JSONObject!) { setAppPrivateData(id: $id, data: $data) }`,
  }),
  route({
    method: 'GET',
    path: '/v1/apps/{id}/user-data/me',
    summary: "The caller's data for this app",
    operation: `query($id: ID!) { myAppData(id: $id) }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/apps/{id}/user-data/me',
    summary: "Replace the caller's data for this app (64 KiB max)",
    body: 'data',
    operation: `mutation($id: ID!, $data: JSONObject!) { setMyAppData(id: $id, data: $data) }`,
  }),
  route({
    method: 'GET',
    path: '/v1/apps/{id}/user-data/users/{userId}',
    summary: "A connected user's data for this app (the owner or the app itself)",
    operation: `query($id: ID!, $userId: ID!) { appUserData(id: $id, userId: $userId) }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/apps/{id}/user-data/users/{userId}',
    summary: "Replace a connected user's data for this app (64 KiB max)",
    body: 'data',
    operation: `mutation($id: ID!, $userId: ID!, $data: JSONObject!) { setAppUserData(id: $id, userId: $userId, data: $data) }`,
  }),
]);
