import { group, route } from '../route.js';
import { USER } from './fragments.js';

export default group('auth', [
  route({
    method: 'POST',
    path: '/v1/users/auth/signup',
    summary: 'Create an account',
    public: true,
    status: 201,
    operation: `mutation($input: SignupInput!) { signup(input: $input) { token user { ${USER} } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/signin',
    summary: 'Sign in with email and password',
    public: true,
    operation: `mutation($input: SigninInput!) { signin(input: $input) { token user { ${USER} } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/signout',
    summary: 'Revoke the token of this request',
    status: 204,
    operation: `mutation { signout }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/auth',
    summary: 'The signed-in user',
    operation: `query { me { ${USER} } }`,
  }),
]);
