import { registerEnumType } from 'type-graphql';

/**
 * Closed value sets as GraphQL enums whose value names are the wire values themselves
 * (`new`, `orderCreated`, `partially_refunded`): GraphQL, REST bodies and webhook payloads
 * spell them the same, and OpenAPI lists them from the schema.
 */
const VALUES = new Map<string, readonly string[]>();

export type EnumOf<T extends readonly string[]> = { [K in T[number]]: K };

export function graphqlEnum<const T extends readonly string[]>(name: string, values: T, description?: string): EnumOf<T> {
  const e = Object.fromEntries(values.map((v) => [v, v])) as EnumOf<T>;
  registerEnumType(e, { name, ...(description ? { description } : {}) });
  VALUES.set(name, values);
  return e;
}

/** The values of an enum declared here, for error messages that say what is expected. */
export const enumValues = (name: string): readonly string[] | undefined => VALUES.get(name);
