import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { ProductCreateInput, ProductPage, ProductStatus, ProductType, ProductUpdateInput } from './product.types.js';
import * as products from './product.service.js';

@Resolver()
export class ProductResolver {
  @Allow(policies.store('store.read'))
  @Query(() => ProductPage, { description: "A store's products, newest first." })
  products(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => ProductStatus, { nullable: true }) status?: string,
  ): Promise<ProductPage> {
    return products.listProducts(ctx, storeId, { limit, cursor, status });
  }

  @Allow(policies.store('store.read'))
  @Query(() => ProductType)
  product(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ProductType> {
    return products.getProduct(ctx, storeId, id);
  }

  @Allow(policies.store('store.read'))
  @Query(() => ProductType, { description: 'A product by its slug, which is unique in its store.' })
  productBySlug(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('slug', () => String) slug: string): Promise<ProductType> {
    return products.getProductBySlug(ctx, storeId, slug);
  }

  @Allow(policies.store('products.write'))
  @Mutation(() => ProductType)
  createProduct(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => ProductCreateInput) input: ProductCreateInput): Promise<ProductType> {
    return products.createProduct(ctx, storeId, input);
  }

  @Allow(policies.store('products.write'))
  @Mutation(() => ProductType)
  updateProduct(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ProductUpdateInput) input: ProductUpdateInput,
  ): Promise<ProductType> {
    return products.updateProduct(ctx, storeId, id, input);
  }

  @Allow(policies.store('products.write'))
  @Mutation(() => Boolean)
  async deleteProduct(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await products.deleteProduct(ctx, storeId, id);
    return true;
  }
}
