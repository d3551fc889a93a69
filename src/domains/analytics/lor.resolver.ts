import { Arg, Ctx as GqlCtx, ID, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { LorAnswerType, ProductLorBatchInput, ProductLorBatchType, StoreLorBatchInput, StoreLorBatchType } from './lor.types.js';
import * as lor from './lor.service.js';
import type { RangeArgs } from './lor.range.js';

const FROM = { nullable: true, description: 'Inclusive: an ISO date (midnight in tz) or date-time. Default: 8 days before to.' };
const TO = { nullable: true, description: 'Exclusive: an ISO date (midnight in tz) or date-time. Default: the end of today in tz.' };
const INTERVAL = { nullable: true, description: '`day` (default), `week` (ISO, from Monday) or `month`.' };
const TZ = { nullable: true, description: 'IANA time zone name of the buckets; default UTC.' };

@Resolver()
export class LorResolver {
  @Query(() => LorAnswerType, { description: 'The lite orders report of a whole store.' })
  @Allow(policies.store('store.read'))
  storeLor(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('from', () => String, FROM) from?: string,
    @Arg('to', () => String, TO) to?: string,
    @Arg('interval', () => String, INTERVAL) interval?: string,
    @Arg('tz', () => String, TZ) tz?: string,
  ): Promise<LorAnswerType> {
    return lor.storeLor(ctx, storeId, { from, to, interval, tz } satisfies RangeArgs);
  }

  @Query(() => LorAnswerType, { description: "The lite orders report of the orders containing a product; revenue and units from its lines only." })
  @Allow(policies.store('store.read'))
  productLor(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('productId', () => ID) productId: string,
    @Arg('from', () => String, FROM) from?: string,
    @Arg('to', () => String, TO) to?: string,
    @Arg('interval', () => String, INTERVAL) interval?: string,
    @Arg('tz', () => String, TZ) tz?: string,
  ): Promise<LorAnswerType> {
    return lor.productLor(ctx, storeId, productId, { from, to, interval, tz });
  }

  @Query(() => LorAnswerType, { description: 'The lite orders report of the orders a product landing page brought (their landingPageId).' })
  @Allow(policies.store('store.read'))
  landingPageLor(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('landingPageId', () => ID) landingPageId: string,
    @Arg('from', () => String, FROM) from?: string,
    @Arg('to', () => String, TO) to?: string,
    @Arg('interval', () => String, INTERVAL) interval?: string,
    @Arg('tz', () => String, TZ) tz?: string,
  ): Promise<LorAnswerType> {
    return lor.landingPageLor(ctx, storeId, landingPageId, { from, to, interval, tz });
  }

  @Query(() => ProductLorBatchType, { description: 'The report of 1 to 100 products of a store, computed by one statement.' })
  @Allow(policies.store('store.read'))
  productLorBatch(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => ProductLorBatchInput) input: ProductLorBatchInput,
  ): Promise<ProductLorBatchType> {
    return lor.productLorBatch(ctx, storeId, input);
  }

  @Query(() => StoreLorBatchType, { description: 'The report of 1 to 50 stores; a store the caller is not a member of fails as NOT_FOUND.' })
  @Allow(policies.user())
  storeLorBatch(@GqlCtx() ctx: Ctx, @Arg('input', () => StoreLorBatchInput) input: StoreLorBatchInput): Promise<StoreLorBatchType> {
    return lor.storeLorBatch(ctx, input);
  }
}
