import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { encryptSecret } from '../src/core/secrets.js';
import { ownerWithStore, type Api, type TestService } from './helpers.js';
import type { FakeChargily } from './fakes/chargily.js';
import type { FakeStripe } from './fakes/stripe.js';

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

/** The service hands providers URLs built from SOUK_PUBLIC_URL (default http://HOST:PORT): give it a real port. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface PaymentShop {
  token: string;
  storeId: string;
  chargilyKey: string;
  stripeKey: string;
  whsec: string;
}

const rand = () => randomBytes(6).toString('hex');

/** A store whose payments integration enables `providers` with keys the fakes know (Stripe posts its events to the store's endpoint). */
export async function paymentShop(
  env: { svc: TestService; api: Api; chargily: FakeChargily; stripe: FakeStripe },
  providers = ['cod', 'chargily', 'stripe'],
  defaultMethod?: string,
): Promise<PaymentShop> {
  const owner = await ownerWithStore(env.api);
  const chargilyKey = `test_sk_${rand()}`;
  const stripeKey = `sk_test_${rand()}`;
  const whsec = `whsec_${randomBytes(24).toString('hex')}`;
  env.chargily.keys.add(chargilyKey);
  env.stripe.accounts.set(stripeKey, { webhookSecret: whsec, webhookUrl: `${env.svc.url}/v1/stores/${owner.storeId}/payment/webhook` });
  await configurePayments(env.svc, owner.storeId, {
    config: { providers, ...(defaultMethod ? { defaultMethod } : {}) },
    secrets: { chargilySecretKey: chargilyKey, stripeSecretKey: stripeKey, stripeWebhookSecret: whsec },
  });
  return { token: owner.token, storeId: owner.storeId, chargilyKey, stripeKey, whsec };
}
