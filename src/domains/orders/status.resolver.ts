import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { StatusCounts, StatusCreateInput, StatusReorderInput, StatusType, StatusUpdateInput } from './status.types.js';
import * as statuses from './status.service.js';

@Resolver()
export class StatusResolver {
  @Allow(policies.store('store.read'))
  @Query(() => [StatusType], { description: "A store's order statuses, by position." })
  statuses(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<StatusType[]> {
    return statuses.listStatuses(ctx, storeId);
  }

  @Allow(policies.store('store.read'))
  @Query(() => StatusCounts, { description: 'How many orders each status holds, and in all.' })
  orderCounts(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<StatusCounts> {
    return statuses.countOrders(ctx, storeId);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => StatusType)
  createStatus(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => StatusCreateInput) input: StatusCreateInput): Promise<StatusType> {
    return statuses.createStatus(ctx, storeId, input);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => StatusType)
  updateStatus(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => StatusUpdateInput) input: StatusUpdateInput,
  ): Promise<StatusType> {
    return statuses.updateStatus(ctx, storeId, id, input);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => Boolean)
  async deleteStatus(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('moveTo', () => ID, { nullable: true, description: 'Where its orders go; required while it has orders.' }) moveTo?: string,
  ): Promise<boolean> {
    await statuses.deleteStatus(ctx, storeId, id, moveTo);
    return true;
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => [StatusType], { description: 'The statuses in their new order.' })
  reorderStatuses(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => StatusReorderInput) input: StatusReorderInput): Promise<StatusType[]> {
    return statuses.reorderStatuses(ctx, storeId, input);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => [StatusType], { description: 'Restore the default list; orders on removed statuses move to the default of the same kind.' })
  resetStatuses(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<StatusType[]> {
    return statuses.resetStatuses(ctx, storeId);
  }
}
