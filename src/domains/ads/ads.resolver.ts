import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { AdAccountPage, AdsConnectionType, AdsOAuthStartInput, AdsOAuthStartType, AdsSettingsInput } from './ads.types.js';
import * as ads from './ads.service.js';

@Resolver()
export class AdsResolver {
  @Query(() => AdsConnectionType, { description: "The store's ads platform connection, settings and recent Conversions API outcomes." })
  @Allow(policies.store('store.read'))
  adsConnection(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<AdsConnectionType> {
    return ads.getAdsConnection(ctx, storeId);
  }

  @Query(() => AdAccountPage, { description: "The connected user's ad accounts, a page at a time; 409 when not connected." })
  @Allow(policies.store('store.read'))
  adAccounts(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('cursor', () => String, { nullable: true, description: "The previous page's nextCursor (signed: any other value is refused)." }) cursor?: string,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 200 (default 50).' }) limit?: number,
  ): Promise<AdAccountPage> {
    return ads.listAdAccounts(ctx, storeId, cursor, limit);
  }

  @Mutation(() => AdsConnectionType, { description: 'Partial update of the ads settings; the ad account must be the connected user\'s.' })
  @Allow(policies.store('integrations.write'))
  updateAdsSettings(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => AdsSettingsInput) input: AdsSettingsInput): Promise<AdsConnectionType> {
    return ads.updateAdsSettings(ctx, storeId, input);
  }

  @Mutation(() => AdsOAuthStartType, { description: "Starts Meta's OAuth flow: where to send the merchant, and the single-use state." })
  @Allow(policies.store('integrations.write'))
  startAdsOAuth(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => AdsOAuthStartInput, { nullable: true }) input?: AdsOAuthStartInput,
  ): Promise<AdsOAuthStartType> {
    return ads.startAdsOAuth(ctx, storeId, input ?? {});
  }

  @Mutation(() => Boolean, { description: 'Revokes the token at Meta (best effort) and forgets it.' })
  @Allow(policies.store('integrations.write'))
  async disconnectAds(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<boolean> {
    await ads.disconnectAds(ctx, storeId);
    return true;
  }
}
