import { Field, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { Page } from '../lib/pagination.js';
import { StoreEventName } from './names.js';

@ObjectType('StoreEvent', { description: 'A committed order or product event of a store.' })
export class StoreEventType {
  @Field(() => ID, { description: "The store's sequence number of the event, as a string: the cursor to resume after." })
  id!: string;

  @Field(() => StoreEventName)
  event!: string;

  @Field(() => GraphQLISODateTime, { description: 'ISO 8601 UTC with milliseconds; the webhook payload carries the same.' })
  timestamp!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => GraphQLJSON, { description: "The webhook payload's data: store_id, order or product, previous_data for the Updated events." })
  data!: Record<string, unknown>;
}

export const StoreEventPage = Page(StoreEventType);
export type StoreEventPage = InstanceType<typeof StoreEventPage>;
