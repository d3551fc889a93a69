import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { IntegrationList, IntegrationPatchInput, IntegrationPutInput, IntegrationPutResult, IntegrationType } from './integration.types.js';
import * as integrations from './integration.service.js';

@Resolver()
export class IntegrationResolver {
  @Query(() => IntegrationList, { description: "The store's integrations by key, secrets masked." })
  @Allow(policies.store('store.read'))
  storeIntegrations(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<IntegrationList> {
    return integrations.listIntegrations(ctx, storeId);
  }

  @Query(() => IntegrationType)
  @Allow(policies.store('store.read'))
  storeIntegration(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('key', () => String) key: string): Promise<IntegrationType> {
    return integrations.getIntegration(ctx, storeId, key);
  }

  @Mutation(() => IntegrationPutResult, { description: 'Create or replace the integration under a key; never calls the provider.' })
  @Allow(policies.store('integrations.write'))
  putStoreIntegration(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('key', () => String) key: string,
    @Arg('input', () => IntegrationPutInput) input: IntegrationPutInput,
  ): Promise<IntegrationPutResult> {
    return integrations.putIntegration(ctx, storeId, key, input);
  }

  @Mutation(() => IntegrationType, { description: 'Merge-patch the config; set (string) or remove (null) secrets.' })
  @Allow(policies.store('integrations.write'))
  updateStoreIntegration(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('key', () => String) key: string,
    @Arg('input', () => IntegrationPatchInput) input: IntegrationPatchInput,
  ): Promise<IntegrationType> {
    return integrations.patchIntegration(ctx, storeId, key, input);
  }

  @Mutation(() => Boolean, { description: 'Revoke at the provider where it can, then delete.' })
  @Allow(policies.store('integrations.write'))
  async deleteStoreIntegration(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('key', () => String) key: string): Promise<boolean> {
    await integrations.deleteIntegration(ctx, storeId, key);
    return true;
  }
}
