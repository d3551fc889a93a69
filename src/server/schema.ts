import 'reflect-metadata';
import { ArgumentValidationError, buildSchema } from 'type-graphql';
import { validateOrReject, type ValidatorOptions } from 'class-validator';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
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
  return guardSubscriptions(schema);
}

/** The committed schema/schema.graphql is exactly this text. */
export function schemaText(schema: GraphQLSchema): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
