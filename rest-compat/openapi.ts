import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  isInterfaceType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { CompiledRoute } from './router.js';
import { describePolicy, PERMISSIONS, policyOf, type Policy } from '../src/core/policy.js';

type Json = Record<string, unknown>;

const SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSON: {},
  JSONObject: { type: 'object', additionalProperties: true },
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };
const ERRORS: Record<string, string> = {
  '400': 'Malformed JSON, bad query string, or a field missing, unknown, of the wrong type or out of range',
  '401': 'No, unknown, expired or revoked bearer token',
  '403': 'The role or token scope does not allow the action',
  '404': 'No such resource, or a store the caller is not a member of',
  '409': 'A unique value is taken, or the resource is in a state that does not allow this',
  '413': 'Body over 1 MiB',
  '414': 'A path parameter over 256 characters',
  '422': 'A count limit is reached',
  '429': 'Too many requests',
  '500': 'Unexpected error',
  '502': 'A provider failed or refused our credentials',
  '503': 'The feature needs configuration the server lacks',
};

/**
 * The route's security requirement, derived from its field's policy: alternatives of the bearer
 * scheme with the OAuth scopes that may call it (any one suffices; sessions hold every scope),
 * and an empty requirement where no token is needed.
 */
export function securityOf(policy: Policy | undefined): Json[] {
  if (!policy) return [{ bearer: [] }];
  switch (policy.kind) {
    case 'public':
      return [];
    case 'delegated':
      return policy.anonymous ? [{}, { bearer: [] }] : [{ bearer: [] }];
    case 'user':
      return [{ bearer: policy.scope ? [policy.scope] : [] }];
    case 'platform':
    case 'orderToken':
      return [{ bearer: [] }];
    case 'storefront':
      // Anyone; a bearer token may come along (a storefront server's, a member's) and changes nothing.
      return [{}, { bearer: [] }];
    case 'store': {
      const alternatives = PERMISSIONS[policy.permission].scopes.map((scope) => ({ bearer: [scope] }));
      // Without the store argument the call falls back to another policy (marketplace reads).
      if (policy.optional === 'public') return [{}, ...alternatives];
      return policy.optional ? [...alternatives, { bearer: [] }] : alternatives;
    }
  }
}

/** What each tag of the table is about, shown as the reference's section intros. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Accounts and sessions: sign-up and sign-in (session tokens), email verification, password reset, API tokens, and the OAuth authorization-code flow with PKCE for apps.',
  users: 'User accounts: the caller and, for platform administrators, every account.',
  apps: 'OAuth apps a developer registers (client id and secret, redirect URIs, scopes), and the data they keep per app and per user.',
  stores: 'Stores and their members. The creator owns the store; owners and admins manage members (roles owner, admin, editor, viewer).',
  products: "A store's catalogue: products with price, stock and status (draft, active, archived).",
  orders: "A store's orders: create, update, move between the store's statuses, confirm or reject, in bulk too. Every change reaches webhooks and the event stream.",
  statuses: "The store's order statuses: their order, names, colours and kinds (new, confirmed, fulfilled, rejected, ...).",
  webhooks: 'Signed HTTP callbacks on order and product events (Standard Webhooks headers), with test sends, delivery history and redelivery.',
  events: "A store's event feed and its server-sent event stream, resumable by event id.",
  integrations: "A store's provider integrations: settings, write-only secrets (read back masked) and status.",
  carrier: 'Shipping through the carrier (Yalidine): coverage and fees, parcels, cancellation, and the carrier webhook that reports parcel statuses.',
  'ads-platform': "The ads platform (Meta): OAuth connection, ad accounts, and the Conversions API settings that report orders.",
  connectors: "Platform connectors (Shopify apps): install into a shop, import its catalogue and orders, and keep them in sync through the shop's webhooks.",
  payments: "An order's payment: methods, checkout (cash on delivery, Chargily, Stripe), status, refunds, and the providers' signed webhooks.",
  'template components': 'Reusable storefront components, public or private to a store, forked into a store as private copies.',
  'shipping prices': 'Shipping price tables per wilaya and delivery type, used to quote an order.',
  'shipping methods': 'Shipping methods offered at checkout, with their price table; public ones may be forked into a store.',
  'store templates': 'Storefront templates and their translations (locales).',
  pages: "A store's content pages, and the public page view by slug.",
  configs: 'Public platform configuration: options marked public, features, currencies and languages.',
  options: 'Platform options (key and JSON value), kept by platform administrators.',
  ai: 'AI brand studios that generate logos and product images, image prompt templates, and the generated assets.',
  'product landing pages': 'Landing pages for one product each, with their own status and analytics.',
  analytics: 'Landing-page order rates (LOR): visits, orders and their ratio, per store, product or landing page.',
  inventory: 'Warehouses, stock levels per product and warehouse, adjustments, and the movement log.',
  geo: "Public geographic lists, not per store: a country's states and their cities (Algeria: the 69 wilayas of the 2025 division and their communes), cacheable for a day and open to every origin.",
  promos: 'Promo codes (percentage, fixed amount, free shipping) with caps, dates and product limits, and their public validation.',
  'storefront-admin': "What a store's members manage of its storefront's defences: server keys for server-rendered shops (admins) and the blocklist of phones and IP ranges (editors and above).",
  'purchase-orders': 'Purchase orders to suppliers: draft, send (mail with PDF), receive into a warehouse, cancel; in batches too.',
  storefront:
    "Shoppers without an account: a store's public catalogue, pages and shipping, cart pricing, guest checkout, and the customer's own order by its token. Cacheable reads (ETag, Cache-Control), CORS per store, limits per buyer address and phone.",
  'storefront admin': "A store's storefront server keys (for server-rendered shops) and its blocklist of phones and addresses.",
};

/** Provider-backed groups: their writes may answer 502 (the provider failed) and 503 (not configured). */
const UPSTREAM_TAGS = new Set(['carrier', 'ads-platform', 'connectors', 'payments']);

/** The generic error answers, each defined once and referenced by the operations that can give it. */
const ERROR_RESPONSES: Record<string, { name: string; description: string; headers?: Json }> = {
  '400': { name: 'BadRequest', description: 'Malformed JSON, a bad query string, or a field missing, unknown, of the wrong type or out of range (`errors` names the fields)' },
  '401': {
    name: 'Unauthenticated',
    description: 'No bearer token, or one that is unknown, expired or revoked',
    headers: { 'WWW-Authenticate': { description: '`Bearer realm="souk"`, with `error="invalid_token"` when a presented token was refused', schema: { type: 'string' } } },
  },
  '403': { name: 'Forbidden', description: 'The role or the token scope does not allow the action' },
  '404': { name: 'NotFound', description: 'No such resource, or a store the caller is not a member of (never revealed)' },
  '409': { name: 'Conflict', description: 'A unique value is taken, the resource is in a state that does not allow this, or an Idempotency-Key was used with another request or is still running' },
  '422': { name: 'LimitExceeded', description: 'A count limit is reached' },
  '429': { name: 'RateLimited', description: 'Too many requests', headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } } },
  '502': { name: 'BadGateway', description: 'A provider failed or refused our credentials' },
  '503': { name: 'NotConfigured', description: 'The feature needs configuration the server lacks' },
};
const DEFAULT_RESPONSE =
  'Any other error, as problem+json: 500 (unexpected), 413 (body over 1 MiB), 414 (a path parameter over 256 characters), 431 (headers too large), and 401 when a route that takes no token is sent an invalid one';
/** Statuses the `default` response stands for (test/contract.ts holds answers to it). */
export const DEFAULT_STATUSES = [401, 413, 414, 431, 500];

/** Id prefixes of the resources (CONTRACT §2), for examples. */
const ID_PREFIX: Record<string, string> = {
  User: 'usr', Store: 'st', Product: 'prod', Order: 'ord', Webhook: 'wh', App: 'app', Token: 'tok', Status: 'stt', OrderStatus: 'stt',
  PurchaseOrder: 'po', Warehouse: 'whs', Promo: 'promo', Parcel: 'pcl', Payment: 'pay', Refund: 'rfd', PlatformConnector: 'con',
  ProductLandingPage: 'plp', TemplateComponent: 'tpc', StoreTemplate: 'stt', Page: 'pg', ShippingMethod: 'shm', ShippingPrice: 'shp',
  BrandStudio: 'bst', AiGeneration: 'gen', AiAsset: 'ast', ImagePromptTemplate: 'ipt', Integration: 'int', StoreEvent: 'evt',
};

export interface OpenApiInfo {
  title: string;
  description: string;
  /** Tag → description; every tag of the table needs one. */
  tags: Record<string, string>;
}

const SOUK_INFO: OpenApiInfo = {
  title: 'Souk REST API',
  description:
    'REST compatibility layer of the Souk GraphQL API: every route runs a GraphQL operation against the same schema (GraphiQL at /graphql). ' +
    'JSON in and out; errors are RFC 9457 problem details. Creates and triggers (POST) take an Idempotency-Key: the same key and request within 24 h answer the first result again, marked Idempotent-Replayed: true.',
  tags: TAG_DESCRIPTIONS,
};

/**
 * OpenAPI 3.1 of every REST route, derived from the same table the router serves. Every object
 * type a route answers is one named schema (the fields routes select from it); generic errors,
 * headers, common parameters and examples are components referenced where they apply.
 */
export function buildOpenApi(schema: GraphQLSchema, compiled: CompiledRoute[], publicUrl = 'http://127.0.0.1:4000', info: OpenApiInfo = SOUK_INFO): Json {
  const inputs: Record<string, Json> = {};

  /** Input types (request bodies) as named schemas; `…At` text fields are date-times. */
  const inputRef = (type: GraphQLNamedType): Json => {
    if (isScalarType(type)) return SCALARS[type.name] ?? { type: 'string' };
    // Enums inline: their values are the wire strings, and clients type them as literal unions.
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value), ...(type.description ? { description: type.description } : {}) };
    if (!inputs[type.name] && isInputObjectType(type)) {
      inputs[type.name] = {};
      const properties: Record<string, Json> = {};
      const required: string[] = [];
      for (const f of Object.values(type.getFields())) {
        const s = toInputSchema(f.type);
        const dateTime = /At$/.test(f.name) && getNamedType(f.type).name === 'String';
        properties[f.name] = { ...s, ...(dateTime ? { format: 'date-time' } : {}), ...(f.description ? { description: f.description } : {}) };
        if (isNonNullType(f.type) && f.defaultValue === undefined) required.push(f.name);
      }
      inputs[type.name] = { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false, ...(type.description ? { description: type.description } : {}) };
    }
    return { $ref: `#/components/schemas/${type.name}` };
  };
  const toInputSchema = (type: GraphQLType): Json => {
    if (isNonNullType(type)) return toInputSchema(type.ofType);
    if (isListType(type)) return { type: 'array', items: toInputSchema(type.ofType) };
    return inputRef(getNamedType(type));
  };

  /** `type: [T, 'null']` where T is one JSON type (OpenAPI 3.1), else a oneOf with null. */
  const orNull = (s: Json): Json => {
    if (Object.keys(s).length === 0) return s;
    if (Array.isArray(s.enum)) return { ...s, type: [s.type, 'null'], enum: [...s.enum, null] };
    if (typeof s.type === 'string' && !s.$ref) return { ...s, type: [s.type, 'null'] };
    return { oneOf: [s, { type: 'null' }] };
  };

  /**
   * Object shapes as routes select them: a placeholder `{'x-shape': key}` per selection, counted,
   * resolved once every route is read into the type's named schema (its most selected shape), that
   * schema plus extra fields, or an inline object for a smaller selection.
   */
  const shapes = new Map<string, { type: string; schema: Json; count: number }>();
  const shape = (typeName: string, s: Json): Json => {
    const key = `${typeName} ${JSON.stringify(s)}`;
    const known = shapes.get(key);
    if (known) known.count++;
    else shapes.set(key, { type: typeName, schema: s, count: 1 });
    return { 'x-shape': key };
  };

  /**
   * The exact JSON a route answers: the fields its operation selects, each always present
   * (required), typed null where GraphQL may answer null. Timestamps (`…At`) are date-times.
   */
  const selected = (type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fieldName = ''): Json => {
    if (isNonNullType(type)) return selectedNonNull(type.ofType, selectionSet, fieldName);
    return orNull(selectedNonNull(type, selectionSet, fieldName));
  };
  const selectedNonNull = (type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fieldName: string): Json => {
    if (isListType(type)) return { type: 'array', items: selected(type.ofType, selectionSet, fieldName) };
    const named = getNamedType(type);
    if (isScalarType(named)) {
      const s = SCALARS[named.name] ?? { type: 'string' };
      return named.name === 'String' && /At$/.test(fieldName) ? { ...s, format: 'date-time' } : s;
    }
    if (isEnumType(named)) return inputRef(named);
    if (!selectionSet) return { type: 'object' };
    if (isUnionType(named) || isInterfaceType(named)) {
      const branches = schema.getPossibleTypes(named).map((t) => objectOf(t, selectionSet));
      return branches.length === 1 ? branches[0] : { oneOf: branches };
    }
    return objectOf(named as never, selectionSet);
  };
  const objectOf = (type: { name: string; description?: string | null; getFields(): Record<string, { type: GraphQLOutputType; description?: string | null }> }, selectionSet: SelectionSetNode): Json => {
    const properties: Record<string, Json> = {};
    const visit = (set: SelectionSetNode) => {
      for (const sel of set.selections) {
        if (sel.kind === 'InlineFragment') {
          if (!sel.typeCondition || sel.typeCondition.name.value === type.name) visit(sel.selectionSet);
          continue;
        }
        if (sel.kind !== 'Field') continue;
        const key = sel.alias?.value ?? sel.name.value;
        if (sel.name.value === '__typename') {
          properties[key] = { type: 'string', const: type.name };
          continue;
        }
        const def = type.getFields()[sel.name.value];
        if (!def) continue;
        properties[key] = { ...selected(def.type, sel.selectionSet, sel.name.value), ...(def.description ? { description: def.description } : {}) };
      }
    };
    visit(selectionSet);
    return shape(type.name, { type: 'object', properties, required: Object.keys(properties), ...(type.description ? { description: type.description } : {}) });
  };

  /** The object schema behind a shape placeholder, for routes that answer part of it (`responseSchema` functions). */
  const unshaped = (s: Json): Json => (typeof s['x-shape'] === 'string' ? shapes.get(s['x-shape'])!.schema : s);

  const paths: Record<string, Json> = {};
  const usedIds = new Set<string>();
  const operationIdOf = (c: CompiledRoute, field: string) => {
    const id = c.route.operationId ?? field;
    if (!id) throw new Error(`REST route ${c.route.method} ${c.route.path}: an ingress route needs an operationId`);
    if (usedIds.has(id)) throw new Error(`REST route ${c.route.method} ${c.route.path}: operationId ${id} is taken; give the route its own`);
    usedIds.add(id);
    return id;
  };
  const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  const errorRef = (code: string) => ({ $ref: `#/components/responses/${ERROR_RESPONSES[code].name}` });
  const pathParam = (name: string) => ({ $ref: `#/components/parameters/${name}` });
  const pathParamNames = new Set<string>();
  /** Query parameters, each defined once (`limitQuery`, `storeIdQuery`) and referenced; a variant stays inline. */
  const queryParams: Record<string, Json> = {};
  const queryParam = (p: Json): Json => {
    const name = `${p.name as string}Query`;
    queryParams[name] ??= p;
    return JSON.stringify(queryParams[name]) === JSON.stringify(p) ? { $ref: `#/components/parameters/${name}` } : p;
  };
  /** Examples the document carries once, named by the schema they show, and referenced by operations. */
  const examplesOf = new Map<Json, { name: string; summary: string; media: Json }>();
  const exampleRequests: Array<{ media: Json; name: string; summary: string }> = [];

  for (const c of compiled) {
    const r = c.route;
    for (const p of c.pathParams) pathParamNames.add(p);
    const tag = r.tags?.[0] ?? '';
    if (!c.document) {
      // A provider ingress route: the provider's signature over the raw body authenticates it.
      const operationId = operationIdOf(c, '');
      const responses: Json = {
        '200': { description: 'Accepted', content: { 'application/json': { schema: (typeof r.responseSchema === 'function' ? undefined : r.responseSchema) ?? { type: 'object' } } } },
        ...(r.extraResponses ?? {}),
        '400': errorRef('400'),
        '401': { description: 'Unverifiable: unknown target, not configured, or a bad or stale signature', headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } }, content: problemContent },
        default: { $ref: '#/components/responses/Error' },
      };
      const requestBody =
        r.method !== 'GET'
          ? { required: false, content: { '*/*': { schema: { type: 'string', description: 'Raw body, verified against the provider signature' }, example: r.example?.request ?? '{"id":"evt_1","type":"event.type","data":{}}' } } }
          : undefined;
      (paths[r.path] ??= {})[r.method.toLowerCase()] = {
        operationId,
        summary: r.summary,
        tags: r.tags ?? [],
        ...(c.pathParams.length ? { parameters: c.pathParams.map(pathParam) } : {}),
        ...(requestBody ? { requestBody } : {}),
        responses,
        security: [],
        'x-souk-ingress': true,
      };
      const accepted = (responses['200'] as { content: Record<string, Json> }).content['application/json'];
      examplesOf.set(accepted, { name: `${operationId}Response`, summary: 'The answer to the provider', media: accepted });
      continue;
    }
    const op = c.document.definitions[0] as OperationDefinitionNode;
    const rootType = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const field = (op.selectionSet.selections[0] as { name: { value: string } }).name.value;
    const fieldDef = rootType.getFields()[field];
    const operationId = operationIdOf(c, field);

    const parameters: Json[] = [
      ...c.pathParams.map(pathParam),
      ...[...c.queryVars].map(([name, type]) => queryParam({ name, in: 'query', ...(isNonNullType(type) ? { required: true } : {}), schema: toInputSchema(type) })),
      ...(c.idempotent ? [{ $ref: '#/components/parameters/Idempotency-Key' }] : []),
    ];
    const status = r.status ?? 200;
    const rootSelection = op.selectionSet.selections[0] as { selectionSet?: SelectionSetNode };
    let answer = selected(fieldDef.type, rootSelection.selectionSet, field);
    // A result mapper may drop null fields: only the non-null ones are sure to be there.
    if (r.result && !r.responseSchema && typeof answer['x-shape'] === 'string') answer = { ...answer, 'x-nullable-optional': true };
    const successHeaders = (code: number): Json | undefined => {
      const h: Json = {};
      if (code === 201) h.Location = { $ref: '#/components/headers/Location' };
      if (c.idempotent && code < 300) h['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
      return Object.keys(h).length ? h : undefined;
    };
    const responses: Json = {
      [String(status)]:
        status === 204
          ? { description: STATUS_TEXT[204] }
          : {
              description: STATUS_TEXT[status],
              content: { 'application/json': { schema: typeof r.responseSchema === 'function' ? r.responseSchema(unshaped(answer)) : (r.responseSchema ?? answer) } },
            },
    };
    if (r.etag) responses['304'] = { description: 'Not Modified: the If-None-Match ETag still matches' };
    if (r.extraResponses) Object.assign(responses, structuredClone(r.extraResponses));
    for (const [code, res] of Object.entries(responses)) {
      const headers = successHeaders(Number(code));
      if (headers && Number(code) < 300) (res as Json).headers = { ...((res as Json).headers as Json), ...headers };
    }
    const policy = policyOf(fieldDef);
    const security = securityOf(policy);
    const takesToken = security.some((alt) => 'bearer' in alt);
    const isPublic = !takesToken;
    const upstream = r.upstream ?? (r.method !== 'GET' && UPSTREAM_TAGS.has(tag));
    const codes = new Set<string>([
      '400',
      ...(takesToken ? ['401', '403'] : []),
      ...(isPublic && !c.pathParams.length && !c.queryVars.has('storeId') ? [] : ['404']),
      // Writes conflict on unique values and states, and on a serialization failure retried once.
      ...(r.method !== 'GET' ? ['409'] : []),
      // Count limits: creating, replacing, or a change that starts work (a studio PATCH that generates).
      ...(r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH' ? ['422'] : []),
      ...(upstream ? ['429', '502', '503'] : []),
      ...(tag === 'auth' ? ['429'] : []),
      ...(r.errors ?? []).map(String),
    ]);
    for (const code of [...codes].sort()) if (!responses[code]) responses[code] = errorRef(code);
    responses.default = { $ref: '#/components/responses/Error' };

    const bodyArg = c.bodyVar ? fieldDef.args.find((a) => a.name === c.bodyVar) : undefined;
    const declaredBody = c.bodyVar ? op.variableDefinitions?.find((v) => v.variable.name.value === c.bodyVar) : undefined;
    const requestMedia = declaredBody && bodyArg ? { schema: toInputSchema(bodyArg.type) } : undefined;
    if (requestMedia) exampleRequests.push({ media: requestMedia, name: `${operationId}Request`, summary: `A ${field} request` });
    const operation: Json = {
      operationId,
      summary: r.summary,
      tags: r.tags ?? [],
      ...(parameters.length ? { parameters } : {}),
      ...(requestMedia && bodyArg ? { requestBody: { required: isNonNullType(bodyArg.type), content: { 'application/json': requestMedia } } } : {}),
      responses,
      security,
      'x-souk-policy': describePolicy(policy),
    };
    for (const [code, res] of Object.entries(responses)) {
      const media = (res as { content?: Record<string, Json> }).content?.['application/json'];
      if (media && Number(code) < 300) examplesOf.set(media, { name: `${operationId}${code === String(status) ? '' : code}Response`, summary: `A ${field} answer`, media });
    }
    if (r.example?.request !== undefined && requestMedia) (requestMedia as Json).example = r.example.request;
    const primary = (responses[String(status)] as { content?: Record<string, Json> }).content?.['application/json'];
    if (r.example?.response !== undefined && primary) primary.example = r.example.response;
    (paths[r.path] ??= {})[r.method.toLowerCase()] = operation;
  }

  // Each type's named schema is the shape routes select most (the smaller one on a tie: larger ones extend it).
  const canonical = new Map<string, string>();
  for (const [key, sh] of shapes) {
    const best = canonical.get(sh.type);
    const b = best ? shapes.get(best)! : null;
    if (!b || sh.count > b.count || (sh.count === b.count && Object.keys(sh.schema.properties as Json).length < Object.keys(b.schema.properties as Json).length)) canonical.set(sh.type, key);
  }
  const outputs: Record<string, Json> = {};
  const resolve = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(resolve);
    if (!v || typeof v !== 'object') return v;
    const o = v as Json;
    if (typeof o['x-shape'] === 'string') {
      const sh = shapes.get(o['x-shape'])!;
      const named = canonical.get(sh.type)!;
      const ref = () => {
        if (!(sh.type in outputs)) {
          outputs[sh.type] = {};
          outputs[sh.type] = resolve(shapes.get(named)!.schema) as Json;
        }
        return { $ref: `#/components/schemas/${sh.type}` };
      };
      const props = sh.schema.properties as Record<string, Json>;
      const sure = (keys: string[]) => (o['x-nullable-optional'] ? keys.filter((k) => !(Array.isArray(props[k].type) || props[k].oneOf)) : keys);
      if (named === o['x-shape'] && !o['x-nullable-optional']) return ref();
      // A selection with more fields than the named schema: the schema and the extra fields.
      const base = shapes.get(named)!.schema.properties as Json;
      const extra = Object.keys(props).filter((k) => !(k in base));
      const baseSure = sure(Object.keys(base)).length === Object.keys(base).length;
      if (baseSure && Object.keys(base).every((k) => JSON.stringify(props[k]) === JSON.stringify(base[k])) && extra.length) {
        return { allOf: [ref(), { type: 'object', properties: Object.fromEntries(extra.map((k) => [k, resolve(props[k])])), required: sure(extra) }] };
      }
      const inline = resolve(sh.schema) as Json;
      return { ...inline, required: sure(inline.required as string[]) };
    }
    return Object.fromEntries(Object.entries(o).map(([k, val]) => [k, resolve(val)]));
  };
  const resolvedPaths = resolve(paths) as Record<string, Json>;
  // Named schemas a route points at itself ($ref in responseSchema) exist too.
  const named = JSON.stringify(resolvedPaths).matchAll(/#\/components\/schemas\/(\w+)/g);
  for (const [, name] of named) if (!(name in outputs) && !(name in inputs) && canonical.has(name)) resolve({ 'x-shape': canonical.get(name) });

  const schemas: Record<string, Json> = { ...inputs, ...outputs, Problem: PROBLEM };
  const examples = buildExamples(schemas, resolvedPaths, examplesOf, exampleRequests);

  const tagNames = [...new Set(compiled.flatMap((c) => c.route.tags ?? []))];
  const missing = tagNames.filter((t) => !info.tags[t]);
  if (missing.length) throw new Error(`OpenAPI: no description for the tags ${missing.join(', ')}`);
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: '1.0.0',
      description: info.description,
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicUrl, description: 'This service (SOUK_PUBLIC_URL, default http://HOST:PORT)' }],
    security: [{ bearer: [] }],
    tags: tagNames.map((name) => ({ name, description: info.tags[name] })),
    paths: resolvedPaths,
    components: {
      schemas,
      responses: {
        ...Object.fromEntries(
          Object.values(ERROR_RESPONSES).map((e) => [
            e.name,
            { description: e.description, ...(e.headers ? { headers: e.name === 'Unauthenticated' ? { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } } : e.headers } : {}), content: problemContent },
          ]),
        ),
        Error: { description: DEFAULT_RESPONSE, content: problemContent },
      },
      parameters: {
        ...Object.fromEntries([...pathParamNames].sort().map((name) => [name, { name, in: 'path', required: true, schema: { type: 'string' } }])),
        ...queryParams,
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: within 24 h the same key and request (per caller) answer the first result again with Idempotent-Replayed: true; the key with another request → 409; while the first request runs → 409. Only successful answers are kept. 1 to 255 visible ASCII characters.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          example: '5f1c7a3e-9a41-4c55-8a0e-1b2f0c3d4e5f',
        },
      },
      headers: {
        Location: { description: 'The URL of the created resource', schema: { type: 'string' } },
        'Idempotent-Replayed': { description: '`true` when the answer is the one kept for this Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
        'WWW-Authenticate': ERROR_RESPONSES['401'].headers!['WWW-Authenticate'] as Json,
      },
      examples,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A session token (every scope) or an OAuth app token (its granted scopes). An operation's requirement lists the scopes of which an app token needs one; the app then acts with the granting user's current role in the store, never more (scope ∩ role).",
        },
      },
    },
  };
}

const PROBLEM: Json = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/**
 * An example for each request body and success answer, made from its schema with values that
 * look like the real ones (prefixed ids, ISO timestamps, amounts in major units). Each distinct
 * example is kept once in components/examples and referenced; media that carry a hand-written
 * `example` keep it.
 */
function buildExamples(schemas: Record<string, Json>, paths: Record<string, Json>, responses: Map<Json, { name: string; summary: string }>, requests: Array<{ media: Json; name: string; summary: string }>): Record<string, Json> {
  const examples: Record<string, Json> = {};
  const byValue = new Map<string, string>();
  const value = (s: Json, key: string, typeName: string, depth: number): unknown => {
    if (s.example !== undefined) return s.example;
    if (typeof s.$ref === 'string') {
      const name = s.$ref.split('/').pop()!;
      return depth > 6 ? {} : value(schemas[name] ?? {}, key, name, depth + 1);
    }
    if ('const' in s) return s.const;
    if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((part) => value(part as Json, key, typeName, depth)));
    if (depth > 0 && Array.isArray(s.oneOf) && (s.oneOf as Json[]).some((b) => b.type === 'null')) return null;
    if (Array.isArray(s.oneOf)) return value((s.oneOf as Json[]).find((b) => b.type !== 'null') ?? {}, key, typeName, depth);
    if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null);
    // Nullable fields show null: the example stays short, and shows which fields may be empty.
    if (depth > 0 && Array.isArray(s.type) && s.type.includes('null') && !/^(id|name|email|url|status|price|total)$/.test(key)) return null;
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
    if (type === 'object' || s.properties) {
      const props = (s.properties ?? {}) as Record<string, Json>;
      const required = new Set((s.required as string[]) ?? Object.keys(props));
      // Request bodies show their required fields and a few optional ones; answers show every field.
      const keys = Object.keys(props).filter((k, i) => required.has(k) || s.additionalProperties !== false || i < 4);
      return Object.fromEntries(keys.map((k) => [k, value(props[k], k, typeName, depth)]));
    }
    if (type === 'array') return [value((s.items ?? {}) as Json, key.replace(/ies$/, 'y').replace(/s$/, ''), typeName, depth)];
    if (type === 'integer') return /quantity|count|total|received|succeeded/i.test(key) ? 1 : /limit/i.test(key) ? 50 : /statusCode/.test(key) ? 200 : /Ms$/.test(key) ? 120 : 0;
    if (type === 'number') return /price|amount|total|cost|subtotal|value|discount|fee/i.test(key) ? 2500 : 1;
    if (type === 'boolean') return /^(test|aborted|deleted)$/.test(key) ? false : true;
    if (type === 'string') return stringExample(s, key, typeName);
    return {};
  };
  const keep = (media: Json, name: string, summary: string, schemaNameHint: string) => {
    if (media.example !== undefined || media.examples || !media.schema) return;
    const schema = media.schema as Json;
    const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : null;
    const v = value(schema, '', ref ?? schemaNameHint, 0);
    const text = JSON.stringify(v);
    let exampleName = byValue.get(text);
    if (!exampleName) {
      exampleName = ref && !examples[ref] ? ref : name;
      examples[exampleName] = { summary: ref ? `A ${ref}` : summary, value: v };
      byValue.set(text, exampleName);
    }
    media.examples = { example: { $ref: `#/components/examples/${exampleName}` } };
  };
  // The resolved paths hold copies of the media objects: find them by operation.
  const byOperation = new Map<string, Json>();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) byOperation.set((op as Json).operationId as string, op as Json);
  for (const r of requests) {
    const op = byOperation.get(r.name.replace(/Request$/, ''))!;
    const media = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
    if (media) keep(media, r.name, r.summary, '');
  }
  for (const { name, summary } of responses.values()) {
    const m = /^(.*?)(\d{3})?Response$/.exec(name)!;
    const op = byOperation.get(m[1])!;
    for (const [code, res] of Object.entries(op.responses as Record<string, Json>)) {
      if (Number(code) >= 300 || (m[2] && m[2] !== code)) continue;
      const media = (res.content as Record<string, Json> | undefined)?.['application/json'];
      if (media) keep(media, name, summary, '');
    }
  }
  return examples;
}

function stringExample(s: Json, key: string, typeName: string): string {
  if (s.format === 'date-time' || /At$/.test(key)) return '2026-11-26T09:30:00.000Z';
  if (s.format === 'binary') return '';
  const k = key.toLowerCase();
  if (key === 'id') return `${ID_PREFIX[typeName] ?? typeName.toLowerCase().slice(0, 4)}_7Hq2LmX9aK`;
  if (/Id$/.test(key)) {
    const owner = key.slice(0, -2);
    const prefix = ID_PREFIX[owner.charAt(0).toUpperCase() + owner.slice(1)];
    return `${prefix ?? owner.toLowerCase().slice(0, 4)}_7Hq2LmX9aK`;
  }
  if (k.includes('email')) return 'owner@example.com';
  if (k.includes('password')) return 'correct horse battery';
  if (k.endsWith('url') || k === 'homepage' || k === 'url') return 'https://shop.example/path';
  if (k === 'currency') return 'DZD';
  if (k.includes('phone')) return '+213555010203';
  if (k === 'country') return 'DZ';
  if (k === 'locale' || k === 'language') return 'fr';
  if (k === 'slug') return 'summer-sale';
  if (k === 'secret') return 'whsec_8f2e4c6a0b1d3f5e7a9c2b4d6f8e0a1c3b5d7f9e1a2c4b6d';
  if (k === 'token' || k === 'accesstoken') return 'souk_tok_3kS9xQ2mVb7Lp0Rw';
  if (k === 'event') return 'orderCreated';
  if (k === 'code') return 'WELCOME10';
  if (k === 'color') return '#1a73e8';
  if (k === 'wilayacode') return '16';
  if (k.includes('name')) return 'Atlas Crafts';
  if (k === 'email' || k === 'to') return 'supplier@example.com';
  return 'text';
}
