import { encryptSecret } from '../src/core/secrets.js';
import type { TestService } from './helpers.js';

export interface PaymentsIntegration {
  enabled?: boolean;
  config: { providers: string[]; defaultMethod?: string };
  secrets?: Record<string, string>;
}

/**
 * Configures a store's `payments` integration with the body `PUT /v1/stores/{id}/integrations/payments`
 * takes. Until that registry route exists this writes the row the way it will (secrets encrypted
 * one by one); once it lands, replace the body with that PUT call.
 */
export async function configurePayments(svc: TestService, storeId: string, body: PaymentsIntegration): Promise<void> {
  const { config, orm } = svc.service.deps;
  const now = new Date();
  const secrets = Object.fromEntries(
    Object.entries(body.secrets ?? {}).map(([name, value]) => [name, { enc: encryptSecret(config.secretKey, value), last4: value.slice(-4), updatedAt: now.toISOString() }]),
  );
  await orm.em.fork().getConnection().execute(
    `insert into store_integrations (id, store_id, key, kind, provider, enabled, status, config, secrets_enc, created_at, updated_at)
     values (?, ?, 'payments', 'payments', null, ?, 'unverified', ?::jsonb, ?::jsonb, ?, ?)
     on conflict (store_id, key) do update set enabled = excluded.enabled, config = excluded.config, secrets_enc = excluded.secrets_enc, updated_at = excluded.updated_at`,
    [`int_${storeId}`, storeId, body.enabled ?? true, JSON.stringify(body.config), JSON.stringify(secrets), now, now],
  );
}

export async function integrationStatus(svc: TestService, storeId: string): Promise<{ status: string; last_error: string | null }> {
  const [row] = await svc.service.deps.orm.em.fork().getConnection().execute(`select status, last_error from store_integrations where store_id = ? and key = 'payments'`, [storeId]);
  return row as { status: string; last_error: string | null };
}
