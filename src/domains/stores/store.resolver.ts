import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { MemberAddInput, MemberType, MemberUpdateInput, StoreCreateInput, StorePage, StoreType, StoreUpdateInput } from './store.types.js';
import * as stores from './store.service.js';

@Resolver()
export class StoreResolver {
  @Allow(policies.user({ scope: 'store.read' }))
  @Query(() => StorePage, { description: 'Stores the caller belongs to, newest first.' })
  stores(
    @GqlCtx() ctx: Ctx,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<StorePage> {
    return stores.listStores(ctx, { limit, cursor });
  }

  @Allow(policies.store('store.read', { arg: 'id' }))
  @Query(() => StoreType)
  store(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<StoreType> {
    return stores.getStore(ctx, id);
  }

  @Allow(policies.user({ scope: 'store.settings' }))
  @Mutation(() => StoreType, { description: 'Create a store; the caller becomes its owner.' })
  createStore(@GqlCtx() ctx: Ctx, @Arg('input', () => StoreCreateInput) input: StoreCreateInput): Promise<StoreType> {
    return stores.createStore(ctx, input);
  }

  @Allow(policies.store('store.manage', { arg: 'id' }))
  @Mutation(() => StoreType)
  updateStore(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('input', () => StoreUpdateInput) input: StoreUpdateInput): Promise<StoreType> {
    return stores.updateStore(ctx, id, input);
  }

  @Allow(policies.store('store.own', { arg: 'id' }))
  @Mutation(() => Boolean)
  async deleteStore(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<boolean> {
    await stores.deleteStore(ctx, id);
    return true;
  }

  @Allow(policies.store('store.read'))
  @Query(() => [MemberType])
  storeMembers(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<MemberType[]> {
    return stores.listMembers(ctx, storeId);
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => MemberType)
  addStoreMember(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => MemberAddInput) input: MemberAddInput): Promise<MemberType> {
    return stores.addMember(ctx, storeId, input);
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => MemberType)
  updateStoreMember(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('userId', () => ID) userId: string,
    @Arg('input', () => MemberUpdateInput) input: MemberUpdateInput,
  ): Promise<MemberType> {
    return stores.updateMember(ctx, storeId, userId, input);
  }

  @Allow(policies.delegated('oneself (leaving): store.leave; another member: store.manage'))
  @Mutation(() => Boolean)
  async removeStoreMember(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('userId', () => ID) userId: string): Promise<boolean> {
    await stores.removeMember(ctx, storeId, userId);
    return true;
  }
}
