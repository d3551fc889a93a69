import { group, route } from '../route.js';
import { USER } from './fragments.js';

export default group('users', [
  route({
    method: 'GET',
    path: '/v1/users',
    summary: 'Every account (platform admins) or only the caller',
    operation: `query($limit: Int, $cursor: String) { users(limit: $limit, cursor: $cursor) { data { ${USER} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users',
    summary: 'Create an account (platform admins)',
    status: 201,
    operation: `mutation($input: UserCreateInput!) { createUser(input: $input) { ${USER} } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/{id}',
    summary: 'Show an account (admins: any; others: their own)',
    operation: `query($id: ID!) { user(id: $id) { ${USER} } }`,
  }),
  route({
    method: 'PATCH',
    path: '/v1/users/{id}',
    summary: 'Change some fields of an account',
    operation: `mutation($id: ID!, $input: UserUpdateInput!) { updateUser(id: $id, input: $input) { ${USER} } }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/users/{id}',
    summary: 'Replace the editable fields of an account (name and email required)',
    operation: `mutation($id: ID!, $input: UserReplaceInput!) { replaceUser(id: $id, input: $input) { ${USER} } }`,
  }),
  route({
    method: 'DELETE',
    path: '/v1/users/{id}',
    summary: 'Delete an account with its tokens and memberships (409 for the last owner of a store)',
    status: 204,
    operation: `mutation($id: ID!) { deleteUser(id: $id) }`,
  }),
]);
