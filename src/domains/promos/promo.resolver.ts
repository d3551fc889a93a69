import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { PromoCreateInput, PromoPage, PromoType, PromoUpdateInput, PromoValidateInput, PromoValidation } from './promo.types.js';
import * as promos from './promo.service.js';

@Resolver()
export class PromoResolver {
  @Query(() => PromoPage, { description: "A store's promo codes, newest first." })
  @Allow(policies.store('store.read'))
  promos(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('active', () => Boolean, { nullable: true }) active?: boolean,
    @Arg('q', () => String, { nullable: true, description: 'Part of the code.' }) q?: string,
  ): Promise<PromoPage> {
    return promos.listPromos(ctx, storeId, { limit, cursor, active, q });
  }

  @Query(() => PromoType)
  @Allow(policies.store('store.read'))
  promo(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<PromoType> {
    return promos.getPromo(ctx, storeId, id);
  }

  @Mutation(() => PromoType)
  @Allow(policies.store('promos.write'))
  createPromo(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => PromoCreateInput) input: PromoCreateInput): Promise<PromoType> {
    return promos.createPromo(ctx, storeId, input);
  }

  @Mutation(() => PromoType, { description: 'Partial update.' })
  @Allow(policies.store('promos.write'))
  updatePromo(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => PromoUpdateInput) input: PromoUpdateInput,
  ): Promise<PromoType> {
    return promos.updatePromo(ctx, storeId, id, input);
  }

  @Mutation(() => Boolean)
  @Allow(policies.store('promos.write'))
  async deletePromo(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await promos.deletePromo(ctx, storeId, id);
    return true;
  }

  @Query(() => PromoValidation, { description: 'Public (60 calls a minute per IP): what the code would do to this cart or order.' })
  @Allow(policies.public())
  validatePromo(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => PromoValidateInput) input: PromoValidateInput): Promise<PromoValidation> {
    return promos.validatePromo(ctx, storeId, input);
  }
}
