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
      return [{ bearer: [] }];
    case 'store': {
      const alternatives = PERMISSIONS[policy.permission].scopes.map((scope) => ({ bearer: [scope] }));
      // Without the store argument the call falls back to another policy (marketplace reads).
      if (policy.optional === 'public') return [{}, ...alternatives];
      return policy.optional ? [...alternatives, { bearer: [] }] : alternatives;
    }
  }
}

/** OpenAPI 3.1 of every REST route, derived from the same table the router serves. */
export function buildOpenApi(schema: GraphQLSchema, compiled: CompiledRoute[], publicUrl = 'http://127.0.0.1:4000'): Json {
  const components: Record<string, Json> = {};

  const ref = (type: GraphQLNamedType): Json => {
    if (isScalarType(type)) return SCALARS[type.name] ?? { type: 'string' };
    // Enums inline: their values are the wire strings, and clients type them as literal unions.
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value), ...(type.description ? { description: type.description } : {}) };
    if (!components[type.name]) {
      components[type.name] = {};
      if (isUnionType(type)) {
        components[type.name] = { oneOf: type.getTypes().map(ref) };
      } else if (isObjectType(type) || isInputObjectType(type)) {
        const fields = Object.values(type.getFields());
        const properties: Record<string, Json> = {};
        const required: string[] = [];
        for (const f of fields) {
          const output = isObjectType(type);
          // Output objects always carry every field, null where GraphQL allows it.
          const s = output && !isNonNullType(f.type) ? orNull(toSchema(f.type)) : toSchema(f.type);
          properties[f.name] = { ...s, ...(output && /At$/.test(f.name) && (getNamedType(f.type) as unknown as GraphQLNamedType).name === 'String' ? { format: 'date-time' } : {}), ...(f.description ? { description: f.description } : {}) };
          if (output || (isNonNullType(f.type) && !('defaultValue' in f && f.defaultValue !== undefined))) required.push(f.name);
        }
        components[type.name] = {
          type: 'object',
          properties,
          ...(required.length ? { required } : {}),
          ...(isInputObjectType(type) ? { additionalProperties: false } : {}),
          ...(type.description ? { description: type.description } : {}),
        };
      }
    }
    return { $ref: `#/components/schemas/${type.name}` };
  };

  const toSchema = (type: GraphQLType): Json => {
    if (isNonNullType(type)) return toSchema(type.ofType);
    if (isListType(type)) return { type: 'array', items: toSchema(type.ofType) };
    return ref(getNamedType(type));
  };
  /** `type: [T, 'null']` where T is one JSON type (OpenAPI 3.1), else a oneOf with null. */
  const orNull = (s: Json): Json => {
    if (Object.keys(s).length === 0) return s;
    if (Array.isArray(s.enum)) return { ...s, type: [s.type, 'null'], enum: [...s.enum, null] };
    if (typeof s.type === 'string' && !s.$ref) return { ...s, type: [s.type, 'null'] };
    return { oneOf: [s, { type: 'null' }] };
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
    if (isEnumType(named)) return ref(named);
    if (!selectionSet) return ref(named);
    if (isUnionType(named) || isInterfaceType(named)) {
      const branches = schema.getPossibleTypes(named).map((t) => objectOf(t, selectionSet));
      return branches.length === 1 ? branches[0] : { oneOf: branches };
    }
    return objectOf(named as never, selectionSet);
  };
  const objectOf = (type: { name: string; getFields(): Record<string, { type: GraphQLOutputType; description?: string | null }> }, selectionSet: SelectionSetNode): Json => {
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
    return { type: 'object', properties, required: Object.keys(properties) };
  };

  const paths: Record<string, Json> = {};
  const usedIds = new Set<string>();
  for (const c of compiled) {
    const r = c.route;
    if (!c.document) {
      // A provider ingress route: the provider's signature over the raw body authenticates it.
      let operationId = r.path.replace(/^\/v1\//, '').replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).map((w, i) => (i ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join('') + r.method.charAt(0) + r.method.slice(1).toLowerCase();
      for (let i = 2; usedIds.has(operationId); i++) operationId = `${operationId}${i}`;
      usedIds.add(operationId);
      const responses: Json = {
        '200': { description: 'Accepted', content: { 'application/json': { schema: (typeof r.responseSchema === 'function' ? undefined : r.responseSchema) ?? { type: 'object' } } } },
        ...(r.extraResponses ?? {}),
      };
      for (const code of ['400', '401', '413', ...(c.pathParams.length ? ['414'] : []), '500']) {
        responses[code] = { description: code === '401' ? 'Unverifiable: unknown target, not configured, or a bad or stale signature' : ERRORS[code], content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
      }
      (paths[r.path] ??= {})[r.method.toLowerCase()] = {
        operationId,
        summary: r.summary,
        tags: r.tags ?? [],
        ...(c.pathParams.length ? { parameters: c.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) } : {}),
        ...(r.method !== 'GET' ? { requestBody: { required: false, content: { '*/*': { schema: { type: 'string', description: 'Raw body, verified against the provider signature' } } } } } : {}),
        responses,
        security: [],
        'x-souk-ingress': true,
      };
      continue;
    }
    const op = c.document.definitions[0] as OperationDefinitionNode;
    const rootType = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const field = (op.selectionSet.selections[0] as { name: { value: string } }).name.value;
    const fieldDef = rootType.getFields()[field];
    let operationId = field;
    for (let i = 2; usedIds.has(operationId); i++) operationId = `${field}${i}`;
    usedIds.add(operationId);

    const parameters: Json[] = [
      ...c.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...[...c.queryVars].map(([name, type]) => ({ name, in: 'query', required: isNonNullType(type), schema: toSchema(type) })),
    ];
    const status = r.status ?? 200;
    // Components for every type a route answers with, for routes that name one in responseSchema.
    ref(getNamedType(fieldDef.type));
    const rootSelection = op.selectionSet.selections[0] as { selectionSet?: SelectionSetNode };
    let answer = selected(fieldDef.type, rootSelection.selectionSet, field);
    // A result mapper may drop null fields: only the non-null ones are sure to be there.
    if (r.result && answer.type === 'object') {
      const props = answer.properties as Record<string, Json>;
      answer = { ...answer, required: Object.keys(props).filter((k) => !(Array.isArray(props[k].type) || props[k].oneOf)) };
    }
    const responses: Json = {
      [String(status)]:
        status === 204
          ? { description: STATUS_TEXT[204] }
          : {
              description: STATUS_TEXT[status],
              content: { 'application/json': { schema: typeof r.responseSchema === 'function' ? r.responseSchema(answer) : (r.responseSchema ?? answer) } },
            },
    };
    if (r.etag) responses['304'] = { description: 'Not Modified: the If-None-Match ETag still matches' };
    if (r.extraResponses) Object.assign(responses, r.extraResponses);
    const policy = policyOf(fieldDef);
    const write = r.method !== 'GET';
    const codes = [
      '400',
      '500',
      // Public routes answer 401 too (a wrong password, a stale token presented) and 403/404 on what they guard.
      '401',
      '403',
      '404',
      ...(write ? ['409', '413'] : []),
      ...(c.pathParams.length ? ['414'] : []),
      // Count limits: creating, replacing, or a change that starts work (a studio PATCH that generates).
      ...(r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH' ? ['422'] : []),
      '429',
      ...(r.operation && /Provider|carrier|payment|Carrier|Payment|ads|Ads|connector|Connector|BrandStudio/.test(r.operation) ? ['502', '503'] : []),
    ];
    for (const code of codes.sort()) {
      responses[code] = {
        description: ERRORS[code],
        ...(code === '429' ? { headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } } } : {}),
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const bodyType = c.bodyVar ? op.variableDefinitions?.find((v) => v.variable.name.value === c.bodyVar) : undefined;
    const bodyArg = c.bodyVar ? fieldDef.args.find((a) => a.name === c.bodyVar) : undefined;
    const operation: Json = {
      operationId,
      summary: r.summary,
      tags: r.tags ?? [],
      ...(parameters.length ? { parameters } : {}),
      ...(bodyType && bodyArg
        ? { requestBody: { required: isNonNullType(bodyArg.type), content: { 'application/json': { schema: toSchema(bodyArg.type) } } } }
        : {}),
      responses,
      security: securityOf(policy),
      'x-souk-policy': describePolicy(policy),
    };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = operation;
  }

  components.Problem = {
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

  const tags = [...new Set(compiled.flatMap((c) => c.route.tags ?? []))].map((name) => ({ name, description: `${name} routes` }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Souk REST API',
      version: '1.0.0',
      description: 'REST compatibility layer of the Souk GraphQL API: every route runs a GraphQL operation against the same schema.',
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicUrl, description: 'This service (SOUK_PUBLIC_URL, default http://HOST:PORT)' }],
    security: [{ bearer: [] }],
    tags,
    paths,
    components: {
      schemas: components,
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
