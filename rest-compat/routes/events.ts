import { group, route } from '../route.js';

/** GET .../events/stream (server-sent events) is an HTTP extension in src/events/stream.ts: it is no GraphQL query. */
export default group('events', [
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}/events',
    summary: "A store's committed events after a cursor, oldest first: `after` is the id of the last event seen",
    operation: `query($storeId: ID!, $after: String, $cursor: String, $limit: Int, $events: [String!]) {
      storeEvents(storeId: $storeId, after: $after, cursor: $cursor, limit: $limit, events: $events) { data { id event timestamp storeId data } nextCursor } }`,
  }),
]);
