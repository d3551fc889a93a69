import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { StorefrontKeyCreateInput, StorefrontKeyPage, StorefrontKeyWithSecretType } from './storefront-keys.types.js';
import * as keys from './storefront-keys.service.js';

@Resolver()
export class StorefrontKeyResolver {
  @Allow(policies.store('store.manage'))
  @Query(() => StorefrontKeyPage, { description: "A store's storefront server keys, newest first; the keys themselves are never shown again." })
  storefrontKeys(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<InstanceType<typeof StorefrontKeyPage>> {
    return keys.listStorefrontKeys(ctx, storeId, { limit, cursor });
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => StorefrontKeyWithSecretType, { description: 'A new storefront server key; the answer carries the key, once (only its SHA-256 is kept).' })
  createStorefrontKey(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => StorefrontKeyCreateInput) input: StorefrontKeyCreateInput,
  ): Promise<StorefrontKeyWithSecretType> {
    return keys.createStorefrontKey(ctx, storeId, input);
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => Boolean, { description: 'Revokes the key: every replica refuses it from now on.' })
  async deleteStorefrontKey(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await keys.deleteStorefrontKey(ctx, storeId, id);
    return true;
  }
}
