import type { Ctx } from '../../core/context.js';

/** A store integration about to be deleted, with its secrets decrypted, as modules see it. */
export interface IntegrationRef {
  storeId: string;
  key: string;
  provider: string | null;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

declare module '../../core/module.js' {
  interface Module {
    /**
     * Runs before a store integration is deleted, outside any transaction: revoke it at its
     * provider where the provider allows (best effort) and drop what the module keeps for it.
     */
    onIntegrationDeleted?: (ctx: Ctx, integration: IntegrationRef) => Promise<void>;
    /** Runs once a registry write (PUT, PATCH, DELETE) of a store integration committed: refresh what the module keeps of it. */
    onIntegrationChanged?: (ctx: Ctx, storeId: string, key: string) => Promise<void>;
  }
}

/** Modules that keep something of an integration (a cache) read it again once a write committed. */
export async function integrationChanged(ctx: Ctx, storeId: string, key: string): Promise<void> {
  for (const m of ctx.deps.modules) await m.onIntegrationChanged?.(ctx, storeId, key);
}

/** Modules revoke at their provider first; a failure is logged, never the merchant's delete refused. */
export async function integrationDeleting(ctx: Ctx, integration: IntegrationRef): Promise<void> {
  for (const m of ctx.deps.modules) {
    try {
      await m.onIntegrationDeleted?.(ctx, integration);
    } catch (err) {
      // Revocation is best effort: the merchant's delete must not depend on the provider being up.
      ctx.deps.log.warn({ storeId: integration.storeId, key: integration.key, module: m.name, err: (err as Error).message }, 'integration not revoked at its provider');
    }
  }
}
