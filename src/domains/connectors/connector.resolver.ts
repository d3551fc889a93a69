import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { PlatformConnectorInstallType, PlatformConnectorType } from './connector.types.js';
import * as connectors from './connector.service.js';

@Resolver()
export class ConnectorResolver {
  @Query(() => [PlatformConnectorType], { description: "The store's platform connectors (remote shops feeding it)." })
  @Allow(policies.store('integrations.write'))
  platformConnectors(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<PlatformConnectorType[]> {
    return connectors.listConnectors(ctx, storeId);
  }

  @Mutation(() => PlatformConnectorInstallType, { description: 'A pending connector for the shop and the URL that installs the app there (single-use state, 10 minutes).' })
  @Allow(policies.store('integrations.write'))
  installPlatformConnector(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('shop', () => String, { description: 'The shop domain, <name>.myshopify.com (a bare name gets the suffix).' }) shop: string,
    @Arg('returnUrl', () => String, { nullable: true, description: 'Where the callback sends the merchant back: an http(s) URL on an allowed origin (SOUK_RETURN_URL_ORIGINS); default the dashboard.' }) returnUrl?: string,
  ): Promise<PlatformConnectorInstallType> {
    return connectors.installConnector(ctx, storeId, shop, returnUrl);
  }
}
