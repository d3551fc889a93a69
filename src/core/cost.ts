import { Extensions } from 'type-graphql';
import type { GraphQLField } from 'graphql';

/**
 * Marks a root field whose call reaches outside the service (an HTTP request to a caller-given
 * url, a mail): a GraphQL request may call at most one such field, however many aliases it uses,
 * so one request cannot fan out into many outbound calls.
 */
export const Outbound = () => Extensions({ outbound: true });

export const isOutbound = (field: GraphQLField<unknown, unknown>) => (field.extensions as { outbound?: boolean } | undefined)?.outbound === true;
