import { group, route } from '../route.js';

export const OPTION = 'key value public createdAt updatedAt';

const base = '/v1/options';

export default [
  ...group('configs', [
    route({
      method: 'GET',
      path: '/v1/configs',
      summary: 'Public platform configuration {options, features, currencies, languages} (ETag)',
      etag: true,
      operation: `query { configs { options features { smtp ai payments carriers } currencies { code symbol name precision } languages { code name nativeName } } }`,
    }),
  ]),
  ...group('options', [
    route({
      method: 'GET',
      path: base,
      summary: 'Every platform option (platform admins)',
      operation: `query { options { data { ${OPTION} } } }`,
    }),
    route({
      method: 'GET',
      path: `${base}/{key}`,
      summary: 'Show an option (platform admins)',
      operation: `query($key: String!) { option(key: $key) { ${OPTION} } }`,
    }),
    route({
      method: 'PUT',
      path: `${base}/{key}`,
      summary: 'Create (201) or replace (200) an option {value, public?} (platform admins)',
      operation: `mutation($key: String!, $input: OptionInput!) { putOption(key: $key, input: $input) { created option { ${OPTION} } } }`,
      reply: (value: { created: boolean; option: unknown }) => ({ status: value.created ? 201 : 200, body: value.option }),
      responseSchema: { $ref: '#/components/schemas/PlatformOption' },
      extraResponses: { '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformOption' } } } } },
    }),
    route({
      method: 'DELETE',
      path: `${base}/{key}`,
      summary: 'Delete an option (platform admins)',
      status: 204,
      operation: `mutation($key: String!) { deleteOption(key: $key) }`,
    }),
    route({
      method: 'POST',
      path: `${base}/reload`,
      summary: 'Make every replica read the options again → {reloaded, version}',
      operation: `mutation { reloadOptions { reloaded version } }`,
    }),
  ]),
];
