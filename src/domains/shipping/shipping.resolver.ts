import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  ShippingMethodForkInput,
  ShippingMethodInput,
  ShippingMethodPage,
  ShippingMethodType,
  ShippingMethodUpdateInput,
  ShippingPriceCreateInput,
  ShippingPricePage,
  ShippingPriceReplaceInput,
  ShippingPriceType,
  ShippingQuoteType,
  ShippingMethodStatus,
  ShippingPriceStatus,
  ShippingType,
} from './shipping.types.js';
import * as shipping from './shipping.service.js';

const READ = policies.store('store.read');
const WRITE = policies.store('catalog.write');

@Resolver()
export class ShippingResolver {
  @Allow(READ)
  @Query(() => ShippingPricePage, { description: "A store's shipping prices, newest first." })
  shippingPrices(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => ShippingPriceStatus, { nullable: true }) status?: string,
  ): Promise<ShippingPricePage> {
    return shipping.listPrices(ctx, storeId, { limit, cursor, status });
  }

  @Allow(READ)
  @Query(() => ShippingPriceType)
  shippingPrice(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ShippingPriceType> {
    return shipping.getPrice(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => ShippingPriceType)
  createShippingPrice(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => ShippingPriceCreateInput) input: ShippingPriceCreateInput): Promise<ShippingPriceType> {
    return shipping.createPrice(ctx, storeId, input);
  }

  @Allow(WRITE)
  @Mutation(() => ShippingPriceType, { description: 'An RFC 7396 merge patch of the price (major units; null removes a member).' })
  patchShippingPrice(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('patch', () => GraphQLJSONObject) patch: Record<string, unknown>,
  ): Promise<ShippingPriceType> {
    return shipping.patchPrice(ctx, storeId, id, patch);
  }

  @Allow(WRITE)
  @Mutation(() => ShippingPriceType, { description: 'Replaces `prices` whole; sets the other fields given.' })
  replaceShippingPrice(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ShippingPriceReplaceInput) input: ShippingPriceReplaceInput,
  ): Promise<ShippingPriceType> {
    return shipping.replacePrice(ctx, storeId, id, input);
  }

  @Allow(WRITE)
  @Mutation(() => Boolean, { description: 'Refused (409) while a shipping method uses the price.' })
  async deleteShippingPrice(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await shipping.deletePrice(ctx, storeId, id);
    return true;
  }

  @Allow(READ)
  @Query(() => ShippingMethodPage, { description: "A store's shipping methods, newest first." })
  shippingMethods(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => ShippingMethodStatus, { nullable: true }) status?: string,
  ): Promise<ShippingMethodPage> {
    return shipping.listMethods(ctx, storeId, { limit, cursor, status });
  }

  @Allow(READ)
  @Query(() => ShippingMethodType)
  shippingMethod(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ShippingMethodType> {
    return shipping.getMethod(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => ShippingMethodType)
  createShippingMethod(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => ShippingMethodInput) input: ShippingMethodInput): Promise<ShippingMethodType> {
    return shipping.createMethod(ctx, storeId, input);
  }

  @Allow(WRITE)
  @Mutation(() => ShippingMethodType, { description: 'Changes the given fields.' })
  updateShippingMethod(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ShippingMethodUpdateInput) input: ShippingMethodUpdateInput,
  ): Promise<ShippingMethodType> {
    return shipping.updateMethod(ctx, storeId, id, input, 'patch');
  }

  @Allow(WRITE)
  @Mutation(() => ShippingMethodType, { description: 'Replaces every field; omitted ones take their defaults.' })
  replaceShippingMethod(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ShippingMethodInput) input: ShippingMethodInput,
  ): Promise<ShippingMethodType> {
    return shipping.updateMethod(ctx, storeId, id, input, 'replace');
  }

  @Allow(WRITE)
  @Mutation(() => Boolean)
  async deleteShippingMethod(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await shipping.deleteMethod(ctx, storeId, id);
    return true;
  }

  @Allow(WRITE)
  @Mutation(() => ShippingMethodType, { description: 'A private copy in the store with sourceId; public methods can be forked into any store.' })
  forkShippingMethod(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ShippingMethodForkInput, { nullable: true }) input?: ShippingMethodForkInput,
  ): Promise<ShippingMethodType> {
    return shipping.forkMethod(ctx, storeId, id, input ?? {});
  }

  @Allow(READ)
  @Query(() => ShippingQuoteType, { description: 'What a method of the store charges for one delivery type to a country and state.' })
  shippingQuote(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('methodId', () => ID) methodId: string,
    @Arg('country', () => String, { defaultValue: 'DZ' }) country: string,
    @Arg('state', () => String, { nullable: true }) state: string | null,
    @Arg('type', () => ShippingType) type: string,
  ): Promise<ShippingQuoteType> {
    return shipping.shippingQuote(ctx, storeId, methodId, country, state ?? null, type);
  }
}
