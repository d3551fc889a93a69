import { Arg, Ctx as GqlCtx, ID, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { Ctx } from '../core/context.js';
import { Allow, policies } from '../core/policy.js';
import { Multiplexed } from '../core/multiplex.js';
import { StoreEventPage, StoreEventType } from './events.types.js';
import * as events from './events.service.js';
import type { StoreEventView } from './events.service.js';

@Resolver()
export class EventsResolver {
  @Allow(policies.store('store.read'))
  @Query(() => StoreEventPage, { name: 'storeEvents', description: "A store's committed events after a cursor, oldest first (kept at least 7 days)." })
  storeEventFeed(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('after', () => String, { nullable: true, description: 'The id of the last event seen; omitted: from the oldest kept.' }) after?: string,
    @Arg('cursor', () => String, { nullable: true, description: 'Same as after (the list convention).' }) cursor?: string,
    @Arg('limit', () => Int, { nullable: true, description: '1 to 200, default 50.' }) limit?: number,
    @Arg('events', () => [String], { nullable: true, description: 'Only these events (legacy spellings accepted).' }) names?: string[],
  ): Promise<StoreEventPage> {
    return events.listStoreEvents(ctx, storeId, { after, cursor, limit, events: names });
  }

  @Allow(policies.store('store.read'))
  // Every member allowed to read the store sees the same events: they share one stream.
  @Multiplexed((_ctx, args) => `store:${String(args.storeId)}`)
  @Subscription(() => StoreEventType, {
    description: "A store's events as they commit, in commit order; members only.",
    // Its policy is enforced before this runs (guardSubscriptions).
    subscribe: ({ args, context }) => events.subscribeStoreEvents(context as Ctx, args.storeId as string, args.events as string[] | null | undefined),
  })
  storeEvents(
    @Root() event: StoreEventView,
    @Arg('storeId', () => ID) _storeId: string,
    @Arg('events', () => [String], { nullable: true, description: 'Only these events (legacy spellings accepted).' }) _events?: string[],
  ): StoreEventType {
    return event;
  }
}
