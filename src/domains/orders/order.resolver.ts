import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { OrderCreateInput, OrderPage, OrderType, OrderUpdateInput } from './order.types.js';
import { ApplyManyResult, OrderApplyInput, OrderApplyManyInput, OrderRejectInput } from './status.types.js';
import * as orders from './order.service.js';

@Resolver()
export class OrderResolver {
  @Allow(policies.store('store.read'))
  @Query(() => OrderPage, { description: "A store's orders, newest first, filtered." })
  orders(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => String, { nullable: true, description: 'A status slug.' }) status?: string,
    @Arg('q', () => String, { nullable: true, description: 'Part of the customer name or phone.' }) q?: string,
    @Arg('createdAfter', () => String, { nullable: true }) createdAfter?: string,
    @Arg('createdBefore', () => String, { nullable: true }) createdBefore?: string,
  ): Promise<OrderPage> {
    return orders.listOrders(ctx, storeId, { limit, cursor, status, q, createdAfter, createdBefore });
  }

  @Allow(policies.store('store.read'))
  @Query(() => OrderType)
  order(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<OrderType> {
    return orders.getOrder(ctx, storeId, id);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => OrderType)
  createOrder(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => OrderCreateInput) input: OrderCreateInput): Promise<OrderType> {
    return orders.createOrder(ctx, storeId, input);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => OrderType)
  updateOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => OrderUpdateInput) input: OrderUpdateInput,
  ): Promise<OrderType> {
    return orders.updateOrder(ctx, storeId, id, input);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => Boolean)
  async deleteOrder(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await orders.deleteOrder(ctx, storeId, id);
    return true;
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => OrderType, { description: 'Give the order one of the store statuses (emits orderUpdated).' })
  applyOrderStatus(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => OrderApplyInput) input: OrderApplyInput,
  ): Promise<OrderType> {
    return orders.applyOrderStatus(ctx, storeId, id, input.statusId);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => OrderType, { description: 'Move the order to the first status of kind confirmed.' })
  confirmOrder(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<OrderType> {
    return orders.confirmOrder(ctx, storeId, id);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => OrderType, { description: 'Move the order to the first status of kind rejected.' })
  rejectOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => OrderRejectInput, { nullable: true }) input?: OrderRejectInput,
  ): Promise<OrderType> {
    return orders.rejectOrder(ctx, storeId, id, input?.reason);
  }

  @Allow(policies.store('orders.write'))
  @Mutation(() => ApplyManyResult, { description: 'One status for many orders, in one transaction.' })
  applyOrderStatusMany(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => OrderApplyManyInput) input: OrderApplyManyInput): Promise<ApplyManyResult> {
    return orders.applyOrderStatusMany(ctx, storeId, input);
  }
}
