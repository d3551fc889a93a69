import 'reflect-metadata';
import { ArgumentValidationError, buildSchema, getMetadataStorage } from 'type-graphql';
import { validateOrReject, type ValidatorOptions } from 'class-validator';
import { isAbstractType, isObjectType, lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { RESOLVERS } from '../domains/resolvers.js';
import { pubSub } from '../events/pubsub.js';
import { guardRootFields, guardSubscriptions } from '../core/policy.js';

/** Never echo targets or values; a missing optional field is not validated. */
const VALIDATOR_OPTIONS: ValidatorOptions = { forbidUnknownValues: false, skipMissingProperties: true, validationError: { target: false, value: false } };

/** Instances of input classes carry the rules; JSON scalars' plain objects are data, never checked. */
function isInputObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto !== null && proto !== Object.prototype;
}

/**
 * type-graphql's own validation imports class-validator dynamically on every argument it checks,
 * which under a module loader costs a round trip to the loader per request; this is the same
 * check with the module imported once.
 */
async function validateArgument(value: unknown): Promise<void> {
  try {
    if (Array.isArray(value)) await Promise.all(value.filter(isInputObject).map((v) => validateOrReject(v, VALIDATOR_OPTIONS)));
    else if (isInputObject(value)) await validateOrReject(value, VALIDATOR_OPTIONS);
  } catch (err) {
    throw new ArgumentValidationError(err as never);
  }
}

/**
 * type-graphql gives every object field a resolver of its own (`root[name]` behind its middleware
 * chain), which compiled execution must then call per field of every object: on a list of 20
 * products, 240 calls. A field with no field resolver, middleware or role, whose property has its
 * schema name, needs none of that, so it reads the property directly (graphql-jit inlines the
 * read; graphql-js's default resolver does the same). Root fields keep theirs (and their policy).
 */
function plainFieldResolvers(schema: GraphQLSchema): void {
  const storage = getMetadataStorage();
  const special = new Set<string>(storage.fieldResolvers.map((r) => r.methodName));
  for (const f of storage.fields) {
    if (f.middlewares?.length || f.roles?.length || f.name !== f.schemaName) special.add(f.schemaName);
  }
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || roots.has(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.resolve && !special.has(field.name)) field.resolve = undefined;
    }
  }
}

/**
 * type-graphql wraps a union's or interface's own `resolveType` in an async function, which
 * compiled execution cannot wait for (it takes the type from the call's return value): the same
 * decision, made synchronously, with the class it returns named by its object type.
 */
function syncTypeResolvers(schema: GraphQLSchema): void {
  const storage = getMetadataStorage();
  const names = new Map<unknown, string>(storage.objectTypes.map((o) => [o.target, o.name]));
  for (const meta of [...storage.unions, ...storage.interfaceTypes]) {
    const own = meta.resolveType;
    const type = schema.getType(meta.name);
    if (!own || !isAbstractType(type)) continue;
    type.resolveType = (value, context, info, abstract) => {
      const resolved = (own as (...args: unknown[]) => unknown)(value, context, info, abstract);
      if (resolved instanceof Promise) throw new Error(`${meta.name}: resolveType must answer synchronously`);
      return typeof resolved === 'string' ? resolved : resolved == null ? undefined : names.get(resolved);
    };
  }
}

export async function createSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: RESOLVERS,
    pubSub,
    // Validation is off by default in type-graphql 2.
    validateFn: validateArgument,
  });
  // The one authorization checker: every root field's declared policy, before its resolver;
  // subscriptions checked when they subscribe.
  guardRootFields(schema);
  plainFieldResolvers(schema);
  syncTypeResolvers(schema);
  return guardSubscriptions(schema);
}

/** The committed schema/schema.graphql is exactly this text. */
export function schemaText(schema: GraphQLSchema): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
