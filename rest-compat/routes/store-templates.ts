import { group, route } from '../route.js';

export const STORE_TEMPLATE = 'id storeId name defaultLocale createdAt updatedAt';
export const LOCALE_ROW = 'locale messages isDefault createdAt updatedAt';
export const LOCALES = `defaultLocale locales messages rows { ${LOCALE_ROW} } coverage`;

const base = '/v1/store_templates';

export default group('store templates', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's templates (?storeId=)",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { storeTemplates(storeId: $storeId, limit: $limit, cursor: $cursor) { data { ${STORE_TEMPLATE} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a store template',
    status: 201,
    operation: `mutation($storeId: ID!, $input: StoreTemplateInput!) { createStoreTemplate(storeId: $storeId, input: $input) { ${STORE_TEMPLATE} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: 'Show a store template',
    operation: `query($storeId: ID!, $id: ID!) { storeTemplate(storeId: $storeId, id: $id) { ${STORE_TEMPLATE} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{id}`,
    summary: 'Rename a store template or choose its default locale',
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateUpdateInput!) { updateStoreTemplate(storeId: $storeId, id: $id, input: $input) { ${STORE_TEMPLATE} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    summary: 'Delete a store template with its locales',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deleteStoreTemplate(storeId: $storeId, id: $id) }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}/locales`,
    summary: 'The locales of a template: {defaultLocale, locales, messages, rows, coverage}',
    operation: `query($storeId: ID!, $id: ID!) { storeTemplateLocales(storeId: $storeId, id: $id) { ${LOCALES} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/locales`,
    summary: 'Add a locale {locale, messages, isDefault?} (409 when it exists)',
    status: 201,
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateLocaleInput!) { createStoreTemplateLocale(storeId: $storeId, id: $id, input: $input) { ${LOCALE_ROW} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}/locales`,
    summary: 'Replace the set of locales {locales: [...]}',
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateLocalesInput!) { replaceStoreTemplateLocales(storeId: $storeId, id: $id, input: $input) { ${LOCALES} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}/locales/{locale}`,
    summary: 'Update a locale {messages?, isDefault?} (201 when it is new)',
    operation: `mutation($storeId: ID!, $id: ID!, $locale: String!, $input: StoreTemplateLocaleUpdateInput!) {
      putStoreTemplateLocale(storeId: $storeId, id: $id, locale: $locale, input: $input) { created locale { ${LOCALE_ROW} } } }`,
    reply: (value: { created: boolean; locale: unknown }) => ({ status: value.created ? 201 : 200, body: value.locale }),
    responseSchema: { $ref: '#/components/schemas/StoreTemplateLocale' },
    extraResponses: { '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/StoreTemplateLocale' } } } } },
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}/locales/{locale}`,
    summary: 'Remove a locale (the default only when it is the last: 409 otherwise)',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!, $locale: String!) { deleteStoreTemplateLocale(storeId: $storeId, id: $id, locale: $locale) }`,
  }),
]);
