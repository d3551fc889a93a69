import { createPubSub } from '@graphql-yoga/subscription';

/** In-process pub/sub behind GraphQL subscriptions; fed after commit. */
export const pubSub = createPubSub<Record<string, [unknown]>>();
