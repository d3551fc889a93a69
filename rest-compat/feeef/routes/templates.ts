import { AppError, invalid } from '../../../src/core/errors.js';
import { ProblemError } from '../../router.js';
import { LOCALE_ROW, LOCALES, STORE_TEMPLATE } from '../../routes/store-templates.js';
import { TEMPLATE_COMPONENT } from '../../routes/template-components.js';
import { namedStore, requireStore, storeFor, storeOfResource, storeOrOnly } from '../locate.js';
import { located, pageArgs, pageList, findRoute, deleteRoute, onResource, STORE_PARAMS, FIND_PARAMS } from '../pages.js';
import { assertById, PAGE_PARAMS, type Call, type FeeefRoute } from '../route.js';
import { anyObj, arr, bool, input, int, nobj, nstr, obj, oneOf, pageOf, str, strs, time } from '../schema.js';
import { mapInput, type FieldMap } from '../shapes.js';

/**
 * Template components (a store's library and the public marketplace), store templates with
 * their locales, image prompt templates, and the storefront's batch component resolver. The
 * store comes from `storeId` (query or body) or the resource's row; PUT is a partial update.
 */

type Row = Record<string, any>;


const ORDERS_BY: Record<string, (a: Row, b: Row) => number> = {
  created_at: (a, b) => (a.createdAt < b.createdAt ? 1 : -1),
  updated_at: (a, b) => (a.updatedAt < b.updatedAt ? 1 : -1),
  title: (a, b) => String(a.title ?? a.name).localeCompare(String(b.title ?? b.name)),
  name: (a, b) => String(a.name).localeCompare(String(b.name)),
};

function orderBy(call: Call, allowed: string[]) {
  const key = call.query.string('orderBy');
  if (key === undefined || key === 'created_at') return undefined;
  if (!allowed.includes(key)) throw invalid('orderBy', `must be one of ${['created_at', ...allowed].join(', ')}`);
  return ORDERS_BY[key];
}

// ── template components ────────────────────────────────────────────────────

/** Feeef's component: Souk's plus the marketplace fields it does not have (no price, licence or screenshots). */
const toComponent = (c: Row) => ({
  ...c,
  userId: null,
  screenshots: [],
  demoUrl: null,
  price: 0,
  discount: null,
  license: null,
  slotsLayout: null,
  deletedAt: null,
});

const componentSchema = obj({ id: str, storeId: str, title: str, code: str, policy: oneOf('private', 'unlisted', 'public', 'deprecated'), version: int, propsSchema: anyObj, propsDefault: anyObj, createdAt: time });

/** Marketplace listing fields Souk's components do not have: accepted, not kept. */
const LISTING = ['screenshots', 'demoUrl', 'price', 'discount', 'license', 'slotsLayout'];
const componentInput: FieldMap = {
  title: 'title',
  code: 'code',
  policy: 'policy',
  subtitle: 'subtitle',
  body: 'body',
  category: 'category',
  tags: 'tags',
  imageUrl: 'imageUrl',
  propsSchema: 'propsSchema',
  slotsSchema: 'slotsSchema',
  propsDefault: 'propsDefault',
  slotsDefault: 'slotsDefault',
  storeId: null,
  parentId: (v) => {
    if (v !== null) throw invalid('parentId', 'is set by forking (POST /template_components/{id}/fork)');
  },
  ...Object.fromEntries(LISTING.map((k) => [k, null])),
};

const COMPONENT = `query($id: ID!, $storeId: ID) { templateComponent(id: $id, storeId: $storeId) { ${TEMPLATE_COMPONENT} } }`;

// ── store templates ────────────────────────────────────────────────────────

const GET_TEMPLATE = `query($storeId: ID!, $id: ID!) { storeTemplate(storeId: $storeId, id: $id) { ${STORE_TEMPLATE} } }`;

/** Feeef's store template: Souk keeps its name (Feeef's title) and locales; a marketplace listing's fields are empty. */
const toStoreTemplate = (t: Row) => ({
  id: t.id,
  storeId: t.storeId,
  userId: null,
  title: t.name,
  subtitle: null,
  body: null,
  category: null,
  tags: [],
  imageUrl: null,
  screenshots: [],
  demoUrl: null,
  price: 0,
  discount: null,
  license: null,
  schema: {},
  data: {},
  policy: 'private',
  parentId: null,
  version: 1,
  defaultLocale: t.defaultLocale,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  deletedAt: null,
});

const storeTemplateSchema = obj({ id: str, storeId: str, title: str, schema: anyObj, data: anyObj, policy: str, defaultLocale: nstr, createdAt: time });

const noThemeData = (key: string) => (v: unknown) => {
  if (v !== null && v !== undefined && !(typeof v === 'object' && Object.keys(v as object).length === 0)) {
    throw invalid(key, 'Souk store templates keep a name and locales; theme schema and data have no home here');
  }
};
const storeTemplateInput: FieldMap = {
  title: 'name',
  defaultLocale: 'defaultLocale',
  schema: noThemeData('schema'),
  data: noThemeData('data'),
  storeId: null,
  ...Object.fromEntries(['subtitle', 'body', 'category', 'tags', 'imageUrl', 'screenshots', 'demoUrl', 'price', 'discount', 'license', 'policy', 'parentId', 'salesClosed'].map((k) => [k, null])),
};

const toLocale = (templateId: string) => (l: Row) => ({ id: `${templateId}/${l.locale}`, storeTemplateId: templateId, ...l });
const localeSchema = obj({ id: str, storeTemplateId: str, locale: str, messages: anyObj, isDefault: bool });
const bundleSchema = obj({ defaultLocale: nstr, locales: strs, messages: anyObj, rows: arr(localeSchema) });
const toBundle = (templateId: string, b: Row) => ({ ...b, rows: (b.rows as Row[]).map(toLocale(templateId)) });

// ── image prompt templates ─────────────────────────────────────────────────

const PROMPT = 'id storeId name description prompt tags propsSchema props previewImageUrl createdAt updatedAt';
const GET_PROMPT = `query($id: ID!, $storeId: ID) { imagePromptTemplate(id: $id, storeId: $storeId) { ${PROMPT} } }`;
const toPrompt = (t: Row) => ({ ...t, attachments: [] });
const promptSchema = obj({ id: str, name: str, description: nstr, prompt: str, tags: strs, attachments: arr(anyObj), previewImageUrl: nstr, propsSchema: anyObj, props: anyObj, createdAt: time });

function promptInput(body: Row): Row {
  const { setToNull, ...rest } = body;
  const mapped = mapInput(rest, {
    name: 'name',
    description: 'description',
    prompt: 'prompt',
    tags: 'tags',
    previewImageUrl: 'previewImageUrl',
    propsSchema: 'propsSchema',
    props: 'props',
    storeId: null,
    attachments: (v) => {
      if (Array.isArray(v) && v.length === 0) return;
      throw invalid('attachments', 'Souk prompt templates have no attachments');
    },
  });
  if (setToNull !== undefined) {
    if (!Array.isArray(setToNull)) throw invalid('setToNull', 'must be an array of field names');
    for (const f of setToNull) {
      if (f !== 'description' && f !== 'previewImageUrl') throw invalid('setToNull', 'may name description and previewImageUrl');
      mapped[f] = null;
    }
  }
  return mapped;
}

/** `{{ name }}`, as Souk's prompts write a placeholder (a malformed one is left for Souk to refuse). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Feeef takes a prompt `{{var}}` its propsSchema does not declare as free text; Souk's templates
 * declare every one (a 400 on /v1), so the face declares each undeclared one as a string property:
 * a generation fills it from the props given, or leaves it empty. The schema written back has them.
 */
function declareFreeText(prompt: string, schema: Row): Row {
  const props = schema.properties ?? {};
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return schema;
  const undeclared = [...new Set([...prompt.matchAll(PLACEHOLDER)].map((m) => m[1]))].filter((n) => !Object.hasOwn(props, n));
  if (!undeclared.length) return schema;
  return { ...schema, properties: { ...props, ...Object.fromEntries(undeclared.map((n) => [n, { type: 'string' }])) } };
}

/** A prompt template's store: the one named, else its own row's (none for the platform's). */
async function promptStore(call: Call, id: string): Promise<string | undefined> {
  return namedStore(call) ?? storeOfResource(call.ctx, id, ['ipt']);
}

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/template_components',
    summary: "A store's component library (storeId), or without it the public marketplace; q/search, policy, category, tags, parentId, orderBy",
    operation: `query($storeId: ID, $limit: Int, $cursor: String, $policy: ComponentPolicy, $category: String, $q: String) {
      templateComponents(storeId: $storeId, limit: $limit, cursor: $cursor, policy: $policy, category: $category, q: $q) { data { ${TEMPLATE_COMPONENT} } nextCursor } }`,
    query: {
      ...PAGE_PARAMS,
      ...STORE_PARAMS,
      q: { type: 'string' },
      search: { type: 'string' },
      policy: { type: 'list' },
      category: { type: 'list' },
      tags: { type: 'list' },
      parentId: { type: 'string' },
      orderBy: { type: 'string', description: 'created_at (default), updated_at or title' },
      filterator: { type: 'string', description: 'Not supported (400)' },
    },
    response: pageOf(componentSchema),
    handle: async (call) => {
      if (call.query.has('filterator')) throw invalid('filterator', 'is not supported: use q, policy, category, tags and parentId');
      const storeId = namedStore(call);
      const policies = call.query.list('policy');
      const categories = call.query.list('category');
      const tags = call.query.list('tags');
      const parentId = call.query.string('parentId');
      const tests: Array<(c: Row) => boolean> = [];
      if (policies && policies.length > 1) tests.push((c) => policies.includes(c.policy));
      if (categories && categories.length > 1) tests.push((c) => categories.includes(c.category));
      if (tags?.length) tests.push((c) => (c.tags as string[]).some((t) => tags.includes(t)));
      if (parentId) tests.push((c) => c.parentId === parentId);
      const sort = orderBy(call, ['updated_at', 'title']);
      const vars = { storeId, q: call.query.first('q', 'search'), policy: policies?.length === 1 ? policies[0] : undefined, category: categories?.length === 1 ? categories[0] : undefined };
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), {
        map: toComponent,
        filter: tests.length || sort ? (c) => tests.every((t) => t(c)) : null,
        sort,
      });
    },
  },
  {
    method: 'POST',
    path: '/template_components',
    summary: 'Create a component in the store storeId (query or body); marketplace listing fields are accepted, not kept',
    operation: `mutation($storeId: ID!, $input: TemplateComponentInput!) { createTemplateComponent(storeId: $storeId, input: $input) { ${TEMPLATE_COMPONENT} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: { ...input({ title: str, code: str, policy: str, storeId: str }, ['title', 'code']), additionalProperties: true },
    response: componentSchema,
    handle: async (call) => toComponent(await call.run({ storeId: await storeOrOnly(call), input: mapInput(call.body, componentInput) })),
  },
  {
    method: 'GET',
    path: '/template_components/{id}',
    summary: "Show a component: the store's own (storeId, or the component's store), else a shared one (no token needed)",
    operation: COMPONENT,
    query: FIND_PARAMS,
    response: componentSchema,
    handle: async (call) => {
      assertById(call.query);
      const id = call.params.id;
      const storeId = namedStore(call);
      if (storeId) return toComponent(await call.run({ id, storeId }));
      // A member reads the component in its own store; anyone else reads it only if it is shared.
      if (!call.ctx.actor) return toComponent(await located(id, call.run({ id })));
      try {
        return toComponent(await call.run({ id, storeId: await storeFor(call, id, ['tpc']) }));
      } catch (err) {
        // Not a member of its store (the lookup's 404) or not in it (GraphQL's): the shared view decides.
        const notFound = err instanceof ProblemError ? err.problem.code === 'NOT_FOUND' : err instanceof AppError && err.code === 'NOT_FOUND';
        if (!notFound) throw err;
        return toComponent(await located(id, call.run({ id })));
      }
    },
  },
  {
    method: 'PUT',
    path: '/template_components/{id}',
    summary: 'Change the given fields of a component (version increases when code or a schema changes)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: TemplateComponentUpdateInput!) { updateTemplateComponent(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE_COMPONENT} } }`,
    query: STORE_PARAMS,
    body: { type: 'object', additionalProperties: true },
    response: componentSchema,
    handle: async (call) => {
      return toComponent(await onResource(call, ['tpc'], () => ({ input: mapInput(call.body, componentInput) })));
    },
  },
  deleteRoute({
    path: '/template_components/{id}',
    summary: 'Delete a component',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteTemplateComponent(storeId: $storeId, id: $id) }',
    prefixes: ['tpc'],
  }),
  {
    method: 'POST',
    path: '/template_components/{id}/fork',
    summary: "Fork a component into the body's storeId (a private copy with parentId), optionally renamed",
    operation: `mutation($storeId: ID!, $id: ID!, $input: ForkInput) { forkTemplateComponent(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE_COMPONENT} } }`,
    status: 201,
    body: input({ storeId: str, title: str }, ['storeId']),
    response: componentSchema,
    handle: async (call) => {
      const { title } = mapInput(call.body, { storeId: null, title: 'title' });
      return toComponent(await call.run({ storeId: requireStore(call, 'storeId'), id: call.params.id, input: title === undefined ? {} : { title } }));
    },
  },
  {
    method: 'POST',
    path: '/actions/resolveComponents',
    summary: "Resolve up to 100 components by id for a store's renderer: its own, or shared ones; others are listed in missing",
    operation: COMPONENT,
    body: input({ storeId: str, ids: strs }, ['storeId', 'ids']),
    response: obj({ resolved: { type: 'object', additionalProperties: anyObj }, missing: strs }),
    handle: async (call) => {
      const storeId = requireStore(call, 'storeId');
      const { ids } = mapInput(call.body, { storeId: null, ids: 'ids' });
      if (!Array.isArray(ids) || ids.length > 100 || ids.some((i) => typeof i !== 'string')) throw invalid('ids', 'must be up to 100 component ids');
      const resolved: Record<string, unknown> = {};
      const missing: string[] = [];
      for (const id of new Set(ids as string[])) {
        let c: Row | null = null;
        for (const vars of [{ id, storeId }, { id }]) {
          try {
            c = await call.run(vars);
            break;
          } catch (err) {
            if (!(err instanceof ProblemError) || err.problem.code !== 'NOT_FOUND') throw err;
          }
        }
        if (!c) missing.push(id);
        else {
          const { id: cid, storeId: sid, version, policy, title, code, propsSchema, slotsSchema, propsDefault, slotsDefault } = c;
          resolved[id] = { id: cid, storeId: sid, version, policy, title, code, propsSchema, slotsSchema, propsDefault, slotsDefault, slotsLayout: null, deprecated: policy === 'deprecated' };
        }
      }
      return { resolved, missing };
    },
  },
  // Store templates and their locales.
  {
    method: 'GET',
    path: '/store_templates',
    summary: "A store's templates (storeId), title order or newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { storeTemplates(storeId: $storeId, limit: $limit, cursor: $cursor) { data { ${STORE_TEMPLATE} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...STORE_PARAMS, q: { type: 'string' }, search: { type: 'string' }, orderBy: { type: 'string' } },
    response: pageOf(storeTemplateSchema),
    handle: async (call) => {
      const storeId = requireStore(call, 'storeId');
      const q = call.query.first('q', 'search')?.toLowerCase();
      const sort = orderBy(call, ['updated_at', 'title']);
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit }), {
        map: toStoreTemplate,
        filter: q || sort ? (t) => !q || String(t.name).toLowerCase().includes(q) : null,
        sort: sort ? (a, b) => sort({ ...a, title: a.name }, { ...b, title: b.name }) : undefined,
      });
    },
  },
  {
    method: 'POST',
    path: '/store_templates',
    summary: 'Create a store template in storeId (query or body): its title; theme schema and data are refused, listing fields not kept',
    operation: `mutation($storeId: ID!, $input: StoreTemplateInput!) { createStoreTemplate(storeId: $storeId, input: $input) { ${STORE_TEMPLATE} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: { ...input({ title: str, storeId: str, defaultLocale: str, schema: nobj, data: nobj }, ['title']), additionalProperties: true },
    response: storeTemplateSchema,
    handle: async (call) => toStoreTemplate(await call.run({ storeId: await storeOrOnly(call), input: mapInput(call.body, storeTemplateInput) })),
  },
  findRoute({
    path: '/store_templates/{id}',
    summary: 'Show a store template',
    operation: GET_TEMPLATE,
    prefixes: ['stt'],
    map: toStoreTemplate,
    response: storeTemplateSchema,
  }),
  {
    method: 'PUT',
    path: '/store_templates/{id}',
    summary: "Rename a store template (title) or choose its default locale",
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateUpdateInput!) { updateStoreTemplate(storeId: $storeId, id: $id, input: $input) { ${STORE_TEMPLATE} } }`,
    query: STORE_PARAMS,
    body: { type: 'object', additionalProperties: true },
    response: storeTemplateSchema,
    handle: async (call) => {
      return toStoreTemplate(await onResource(call, ['stt'], () => ({ input: mapInput(call.body, storeTemplateInput) })));
    },
  },
  deleteRoute({
    path: '/store_templates/{id}',
    summary: 'Delete a store template with its locales',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteStoreTemplate(storeId: $storeId, id: $id) }',
    prefixes: ['stt'],
  }),
  {
    method: 'GET',
    path: '/store_templates/{id}/locales',
    summary: 'The locales of a template: {defaultLocale, locales, messages, rows, coverage}',
    operation: `query($storeId: ID!, $id: ID!) { storeTemplateLocales(storeId: $storeId, id: $id) { ${LOCALES} } }`,
    query: STORE_PARAMS,
    response: bundleSchema,
    handle: async (call) => {
      const id = call.params.id;
      return toBundle(id, await onResource(call, ['stt']));
    },
  },
  {
    method: 'POST',
    path: '/store_templates/{id}/locales',
    summary: 'Add a locale {locale, messages, isDefault?} (409 when it exists)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateLocaleInput!) { createStoreTemplateLocale(storeId: $storeId, id: $id, input: $input) { ${LOCALE_ROW} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: input({ locale: str, messages: anyObj, isDefault: bool }, ['locale']),
    response: localeSchema,
    handle: async (call) => {
      const id = call.params.id;
      const row = await onResource(call, ['stt'], () => ({ input: mapInput(call.body, { locale: 'locale', messages: 'messages', isDefault: 'isDefault' }) }));
      return toLocale(id)(row);
    },
  },
  {
    method: 'PUT',
    path: '/store_templates/{id}/locales',
    summary: 'Replace the set of locales {locales: [...]}',
    operation: `mutation($storeId: ID!, $id: ID!, $input: StoreTemplateLocalesInput!) { replaceStoreTemplateLocales(storeId: $storeId, id: $id, input: $input) { ${LOCALES} } }`,
    query: STORE_PARAMS,
    body: input({ locales: arr(input({ locale: str, messages: anyObj, isDefault: bool }, ['locale'])) }, ['locales']),
    response: bundleSchema,
    handle: async (call) => {
      const id = call.params.id;
      return toBundle(id, await onResource(call, ['stt'], () => ({ input: mapInput(call.body, { locales: 'locales' }) })));
    },
  },
  {
    method: 'PUT',
    path: '/store_templates/{id}/locales/{locale}',
    summary: 'Update a locale {messages?, isDefault?}; a new locale is created',
    operation: `mutation($storeId: ID!, $id: ID!, $locale: String!, $input: StoreTemplateLocaleUpdateInput!) {
      putStoreTemplateLocale(storeId: $storeId, id: $id, locale: $locale, input: $input) { created locale { ${LOCALE_ROW} } } }`,
    query: STORE_PARAMS,
    body: input({ messages: anyObj, isDefault: bool }),
    response: localeSchema,
    handle: async (call) => {
      const id = call.params.id;
      const put = await onResource(call, ['stt'], () => ({ locale: call.params.locale, input: mapInput(call.body, { messages: 'messages', isDefault: 'isDefault' }) }));
      return toLocale(id)(put.locale);
    },
  },
  {
    method: 'DELETE',
    path: '/store_templates/{id}/locales/{locale}',
    summary: 'Remove a locale (the default only when it is the last: 409 otherwise)',
    operation: 'mutation($storeId: ID!, $id: ID!, $locale: String!) { deleteStoreTemplateLocale(storeId: $storeId, id: $id, locale: $locale) }',
    query: STORE_PARAMS,
    status: 204,
    handle: async (call) => {
      await onResource(call, ['stt'], { locale: call.params.locale });
    },
  },
  // Image prompt templates: the platform's (no store), or a store's own.
  {
    method: 'GET',
    path: '/image_prompt_templates',
    summary: "Image prompt templates: the platform's, or with storeId the store's own; q/search, tags, id, name, nameLike, hasPreview, orderBy",
    operation: `query($storeId: ID, $limit: Int, $cursor: String, $tag: String, $q: String) { imagePromptTemplates(storeId: $storeId, limit: $limit, cursor: $cursor, tag: $tag, q: $q) { data { ${PROMPT} } nextCursor } }`,
    query: {
      ...PAGE_PARAMS,
      ...STORE_PARAMS,
      q: { type: 'string' },
      search: { type: 'string' },
      tags: { type: 'list' },
      id: { type: 'string' },
      name: { type: 'string' },
      nameLike: { type: 'string' },
      hasPreview: { type: 'boolean' },
      orderBy: { type: 'string', description: 'created_at (default), updated_at or name' },
    },
    response: pageOf(promptSchema),
    handle: async (call) => {
      const tags = call.query.list('tags');
      const id = call.query.string('id');
      const name = call.query.string('name');
      const like = call.query.string('nameLike')?.toLowerCase();
      const preview = call.query.boolean('hasPreview');
      const tests: Array<(t: Row) => boolean> = [];
      if (tags && tags.length > 1) tests.push((t) => (t.tags as string[]).some((x) => tags.includes(x)));
      if (id) tests.push((t) => t.id === id);
      if (name) tests.push((t) => t.name === name);
      if (like) tests.push((t) => String(t.name).toLowerCase().includes(like));
      if (preview !== undefined) tests.push((t) => Boolean(t.previewImageUrl) === preview);
      const sort = orderBy(call, ['updated_at', 'name']);
      const vars = { storeId: namedStore(call), q: call.query.first('q', 'search'), tag: tags?.length === 1 ? tags[0] : undefined };
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), {
        map: toPrompt,
        filter: tests.length || sort ? (t) => tests.every((x) => x(t)) : null,
        sort,
      });
    },
  },
  {
    method: 'POST',
    path: '/image_prompt_templates',
    summary: 'Create an image prompt template (platform admins; with storeId a store editor); attachments must be empty',
    operation: `mutation($storeId: ID, $input: ImagePromptTemplateCreateInput!) { createImagePromptTemplate(storeId: $storeId, input: $input) { ${PROMPT} } }`,
    query: STORE_PARAMS,
    status: 201,
    body: input({ name: str, description: nstr, prompt: str, tags: strs, attachments: arr(anyObj), previewImageUrl: nstr, propsSchema: anyObj, props: anyObj, storeId: str }, ['name', 'prompt']),
    response: promptSchema,
    handle: async (call) => {
      const input = promptInput(call.body);
      if (typeof input.prompt === 'string') input.propsSchema = declareFreeText(input.prompt, (input.propsSchema as Row | undefined) ?? {});
      return toPrompt(await call.run({ storeId: namedStore(call), input }));
    },
  },
  {
    method: 'GET',
    path: '/image_prompt_templates/{id}',
    summary: 'Show an image prompt template',
    operation: GET_PROMPT,
    query: FIND_PARAMS,
    response: promptSchema,
    handle: async (call) => {
      assertById(call.query);
      const id = call.params.id;
      return toPrompt(await located(id, call.run({ id, storeId: await promptStore(call, id) })));
    },
  },
  {
    method: 'PUT',
    path: '/image_prompt_templates/{id}',
    summary: 'Change the given fields of an image prompt template (setToNull clears description or previewImageUrl)',
    operation: `mutation($storeId: ID, $id: ID!, $input: ImagePromptTemplateUpdateInput!) { updateImagePromptTemplate(storeId: $storeId, id: $id, input: $input) { ${PROMPT} } }`,
    operations: [GET_PROMPT],
    query: STORE_PARAMS,
    body: input({ name: str, description: nstr, prompt: str, tags: strs, attachments: arr(anyObj), previewImageUrl: nstr, propsSchema: anyObj, props: anyObj, setToNull: strs }),
    response: promptSchema,
    handle: async (call) => {
      const id = call.params.id;
      const storeId = await promptStore(call, id);
      const input = promptInput(call.body);
      // A new prompt or schema is checked against the other, as stored when not given.
      if (input.prompt != null || input.propsSchema != null) {
        const stored = input.prompt != null && input.propsSchema != null ? null : ((await located(id, call.run({ id, storeId }, { operation: GET_PROMPT }))) as Row);
        const prompt = (input.prompt ?? stored!.prompt) as string;
        const schema = declareFreeText(prompt, (input.propsSchema ?? stored!.propsSchema) as Row);
        if (input.propsSchema != null || schema !== stored!.propsSchema) input.propsSchema = schema;
      }
      return toPrompt(await located(id, call.run({ id, storeId, input })));
    },
  },
  {
    method: 'DELETE',
    path: '/image_prompt_templates/{id}',
    summary: 'Delete an image prompt template',
    operation: 'mutation($storeId: ID, $id: ID!) { deleteImagePromptTemplate(storeId: $storeId, id: $id) }',
    query: FIND_PARAMS,
    status: 204,
    handle: async (call) => {
      assertById(call.query);
      const id = call.params.id;
      await located(id, call.run({ id, storeId: await promptStore(call, id) }));
    },
  },
];
