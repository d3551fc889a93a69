import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { LandingPageStatus, ProductLandingPageCreateInput, ProductLandingPagePage, ProductLandingPageType, ProductLandingPageUpdateInput } from './landing-page.types.js';
import * as pages from './landing-page.service.js';

@Resolver()
export class LandingPageResolver {
  @Query(() => ProductLandingPagePage, { description: "A store's product landing pages, newest first." })
  @Allow(policies.store('store.read'))
  productLandingPages(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('productId', () => ID, { nullable: true }) productId?: string,
    @Arg('status', () => LandingPageStatus, { nullable: true }) status?: string,
  ): Promise<ProductLandingPagePage> {
    return pages.listLandingPages(ctx, storeId, { limit, cursor, productId, status });
  }

  @Query(() => ProductLandingPageType)
  @Allow(policies.store('store.read'))
  productLandingPage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ProductLandingPageType> {
    return pages.getLandingPage(ctx, storeId, id);
  }

  @Mutation(() => ProductLandingPageType)
  @Allow(policies.store('catalog.write'))
  createProductLandingPage(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => ProductLandingPageCreateInput) input: ProductLandingPageCreateInput,
  ): Promise<ProductLandingPageType> {
    return pages.createLandingPage(ctx, storeId, input);
  }

  @Mutation(() => ProductLandingPageType)
  @Allow(policies.store('catalog.write'))
  updateProductLandingPage(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ProductLandingPageUpdateInput) input: ProductLandingPageUpdateInput,
  ): Promise<ProductLandingPageType> {
    return pages.updateLandingPage(ctx, storeId, id, input);
  }

  @Mutation(() => Boolean)
  @Allow(policies.store('catalog.write'))
  async deleteProductLandingPage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await pages.deleteLandingPage(ctx, storeId, id);
    return true;
  }
}
