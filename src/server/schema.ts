import 'reflect-metadata';
import { buildSchema } from 'type-graphql';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { RESOLVERS } from '../domains/resolvers.js';
import { pubSub } from '../events/pubsub.js';
import { guardRootFields, guardSubscriptions } from '../core/policy.js';

export async function createSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: RESOLVERS,
    pubSub,
    // Validation is off by default in type-graphql 2; never echo targets or values.
    validate: { forbidUnknownValues: false, validationError: { target: false, value: false } },
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
