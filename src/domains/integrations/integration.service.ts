import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { encryptSecret } from '../../core/secrets.js';
import { transaction } from '../../core/tx.js';
import { StoreIntegration } from './integration.entity.js';
import { integrationChanged, integrationDeleting } from './integration.hooks.js';
import { loadIntegration } from './integration.access.js';
import { checkSecret, kindOf, MAX_INTEGRATIONS, MAX_SECRETS, validateConfig, validateProvider, type IntegrationKind } from './integration.kinds.js';
import type { IntegrationPatchInput, IntegrationPutInput, IntegrationType } from './integration.types.js';

type StoredSecrets = StoreIntegration['secretsEnc'];

/** Only the last four characters of a secret of at least eight are ever shown. */
const last4 = (value: string) => (value.length >= 8 ? value.slice(-4) : null);

export function integrationView(row: StoreIntegration): IntegrationType {
  const secrets: Record<string, { set: true; last4: string | null; updatedAt: string }> = {};
  for (const [name, s] of Object.entries(row.secretsEnc)) secrets[name] = { set: true, last4: s.last4 || null, updatedAt: s.updatedAt };
  return {
    key: row.key,
    kind: row.kind,
    provider: row.provider,
    enabled: row.enabled,
    status: row.status,
    config: row.config,
    secrets,
    lastError: row.lastError,
    lastSuccessAt: row.lastSuccessAt ? row.lastSuccessAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listIntegrations(ctx: Ctx, storeId: string): Promise<{ data: IntegrationType[] }> {
  const rows = await ctx.em.find(StoreIntegration, { storeId }, { orderBy: { key: 'asc' } });
  return { data: rows.map(integrationView) };
}

export async function getIntegration(ctx: Ctx, storeId: string, key: string): Promise<IntegrationType> {
  const row = KEYLIKE.test(key) ? await ctx.em.findOne(StoreIntegration, { storeId, key }) : null;
  if (!row) throw notFound('integration');
  return integrationView(row);
}

/** Reads never validate a key beyond its shape: anything else is simply not found. */
const KEYLIKE = /^[a-z0-9-]{1,64}$/;

function encrypt(ctx: Ctx, value: string, now: Date) {
  return { enc: encryptSecret(ctx.deps.config.secretKey, value), last4: last4(value) ?? '', updatedAt: now.toISOString() };
}

function secretEntries(input: unknown): Array<[string, unknown]> {
  if (input === undefined || input === null) return [];
  if (typeof input !== 'object' || Array.isArray(input)) throw invalid('secrets', 'must be an object of name to string');
  return Object.entries(input as Record<string, unknown>);
}

function checkSecretCount(secrets: StoredSecrets): void {
  if (Object.keys(secrets).length > MAX_SECRETS) throw invalid('secrets', `must hold at most ${MAX_SECRETS} secrets`);
}

/** The store row, locked: creations of one store's integrations queue here, so the count holds. */
async function lockStore(ctx: Ctx, storeId: string): Promise<void> {
  const [row] = await ctx.em.execute<Array<{ id: string }>>('select id from stores where id = ? for update', [storeId]);
  if (!row) throw notFound('store');
}

/**
 * PUT replaces provider, enabled and config. `secrets`, when given, replaces the secret set;
 * omitted, the stored secrets stay (they cannot be read back to be sent again). Saving never
 * calls the provider: a changed integration is `unverified` until a connection test passes.
 */
export async function putIntegration(ctx: Ctx, storeId: string, key: string, input: IntegrationPutInput): Promise<{ created: boolean; integration: IntegrationType }> {
  const def = kindOf(key);
  const provider = validateProvider(def, input.provider, null);
  const config = validateConfig(def, input.config, provider, ctx.deps.config);
  const given = secretEntries(input.secrets);
  for (const [name, value] of given) checkSecret(def, name, value, false, provider);
  const result = await transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const now = new Date();
    let row = await tx.em.findOne(StoreIntegration, { storeId, key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const created = !row;
    if (!row) {
      const count = await tx.em.count(StoreIntegration, { storeId });
      if (count >= MAX_INTEGRATIONS) throw new AppError('LIMIT_EXCEEDED', `A store has at most ${MAX_INTEGRATIONS} integrations`);
      row = tx.em.create(StoreIntegration, { storeId, key, kind: def.kind, createdAt: now });
    }
    if (input.secrets !== undefined && input.secrets !== null) {
      const secrets: StoredSecrets = {};
      for (const [name, value] of given) secrets[name] = encrypt(tx, value as string, now);
      checkSecretCount(secrets);
      row.secretsEnc = secrets;
    }
    row.provider = provider;
    row.enabled = input.enabled ?? true;
    row.config = config;
    row.status = 'unverified';
    row.lastError = null;
    row.updatedAt = now;
    await tx.em.flush();
    return { created, integration: integrationView(row) };
  });
  await integrationChanged(ctx, storeId, key);
  return result;
}

/** RFC 7396: objects merge key by key, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}

/** PATCH merges `config` (RFC 7396); in `secrets` a string sets that secret and null removes it. */
export async function patchIntegration(ctx: Ctx, storeId: string, key: string, input: IntegrationPatchInput): Promise<IntegrationType> {
  const def: IntegrationKind = kindOf(key);
  if (input.config === null) throw invalid('config', 'must be an object (a merge patch)');
  const given = secretEntries(input.secrets);
  for (const [name, value] of given) checkSecret(def, name, value, true);
  const view = await transaction(ctx, async (tx) => {
    const row = await tx.em.findOne(StoreIntegration, { storeId, key }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw notFound('integration');
    const now = new Date();
    let changed = false;
    if (input.provider !== undefined) {
      row.provider = validateProvider(def, input.provider, row.provider);
      changed = true;
    }
    // A new provider may need other settings: the config is checked against the provider it ends with.
    if (input.config !== undefined || input.provider !== undefined) {
      row.config = validateConfig(def, input.config !== undefined ? mergePatch(row.config, input.config) : row.config, row.provider, tx.deps.config);
      changed = true;
    }
    for (const [name, value] of given) if (value !== null) checkSecret(def, name, value, true, row.provider);
    if (given.length) {
      const secrets: StoredSecrets = { ...row.secretsEnc };
      for (const [name, value] of given) {
        if (value === null) delete secrets[name];
        else secrets[name] = encrypt(tx, value as string, now);
      }
      checkSecretCount(secrets);
      row.secretsEnc = secrets;
      changed = true;
    }
    if (changed) {
      row.status = 'unverified';
      row.lastError = null;
    }
    if (input.enabled !== undefined && input.enabled !== null) row.enabled = input.enabled;
    row.updatedAt = now;
    await tx.em.flush();
    return integrationView(row);
  });
  await integrationChanged(ctx, storeId, key);
  return view;
}

/** Modules revoke at their provider first (best effort), then the record goes. */
export async function deleteIntegration(ctx: Ctx, storeId: string, key: string): Promise<void> {
  const loaded = KEYLIKE.test(key) ? await loadIntegration(ctx, storeId, key) : null;
  if (!loaded) throw notFound('integration');
  const ref = { storeId, key, provider: loaded.row.provider, config: loaded.config, secrets: loaded.secrets };
  await integrationDeleting(ctx, ref);
  await transaction(ctx, (tx) => tx.em.nativeDelete(StoreIntegration, { storeId, key }));
  await integrationChanged(ctx, storeId, key);
}
