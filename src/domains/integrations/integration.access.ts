import type { Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { decryptSecret } from '../../core/secrets.js';
import { StoreIntegration } from './integration.entity.js';

/** An integration as provider adapters use it: config and decrypted secrets (never sent to clients). */
export interface LoadedIntegration {
  row: StoreIntegration;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** The store's integration under `key`, or null; secrets decrypted for the adapter's call. */
export async function loadIntegration(ctx: Ctx, storeId: string, key: string): Promise<LoadedIntegration | null> {
  const row = await ctx.em.findOne(StoreIntegration, { storeId, key });
  if (!row) return null;
  const secrets: Record<string, string> = {};
  for (const [name, s] of Object.entries(row.secretsEnc)) secrets[name] = decryptSecret(ctx.deps.config.secretKey, s.enc);
  return { row, config: row.config, secrets };
}

/** Records what the provider said of our credentials: `active` after a success, `error` with the reason. */
export async function markIntegration(ctx: Ctx, storeId: string, key: string, outcome: { ok: true } | { ok: false; error: string }): Promise<void> {
  const now = new Date();
  const change = outcome.ok ? { status: 'active', lastError: null, lastSuccessAt: now, updatedAt: now } : { status: 'error', lastError: outcome.error.slice(0, 500), updatedAt: now };
  await transaction(ctx, (tx) => tx.em.nativeUpdate(StoreIntegration, { storeId, key }, change));
}
