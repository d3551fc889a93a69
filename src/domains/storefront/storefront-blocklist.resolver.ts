import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { StorefrontBlockInput, StorefrontBlockPage, StorefrontBlockType } from './storefront-blocklist.types.js';
import * as blocklist from './storefront-blocklist.service.js';

@Resolver()
export class StorefrontBlocklistResolver {
  @Allow(policies.store('storefront.blocklist'))
  @Query(() => StorefrontBlockPage, { description: "The store's storefront blocklist, newest first." })
  storefrontBlocklist(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<InstanceType<typeof StorefrontBlockPage>> {
    return blocklist.listBlocklist(ctx, storeId, { limit, cursor });
  }

  @Allow(policies.store('storefront.blocklist'))
  @Mutation(() => StorefrontBlockType, { description: 'Blocks a phone or an IP range from checking out; the value is stored normalised.' })
  createStorefrontBlocklistEntry(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => StorefrontBlockInput) input: StorefrontBlockInput,
  ): Promise<StorefrontBlockType> {
    return blocklist.createBlocklistEntry(ctx, storeId, input);
  }

  @Allow(policies.store('storefront.blocklist'))
  @Mutation(() => Boolean)
  async deleteStorefrontBlocklistEntry(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await blocklist.deleteBlocklistEntry(ctx, storeId, id);
    return true;
  }
}
