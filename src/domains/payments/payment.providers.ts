import type { Config } from '../../config.js';
import type { Ctx } from '../../core/context.js';
import { loadIntegration } from '../integrations/integration.access.js';
import type { PaymentAdapter, PaymentSecrets } from '../../providers/payment.js';
import { codAdapter } from '../../providers/cod/cod.js';
import { chargilyAdapter } from '../../providers/chargily/chargily.js';
import { stripeAdapter } from '../../providers/stripe/stripe.js';

export const PROVIDERS = ['cod', 'chargily', 'stripe'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const cache = new WeakMap<Config, Record<ProviderName, PaymentAdapter>>();

/** The adapters, built once per configuration (base URLs come from configuration only). */
export function adapters(config: Config): Record<ProviderName, PaymentAdapter> {
  let a = cache.get(config);
  if (!a) {
    a = { cod: codAdapter, chargily: chargilyAdapter(config), stripe: stripeAdapter(config) };
    cache.set(config, a);
  }
  return a;
}

export function adapterOf(config: Config, provider: string): PaymentAdapter {
  const a = adapters(config)[provider as ProviderName];
  if (!a) throw new Error(`unknown payment provider ${provider}`);
  return a;
}

/** The store's `payments` integration as the payment routes read it. */
export interface PaymentSettings {
  /** False without an enabled integration: then only cash on delivery is offered. */
  enabled: boolean;
  providers: string[];
  defaultMethod: string | null;
  secrets: PaymentSecrets;
}

export async function paymentSettings(ctx: Ctx, storeId: string): Promise<PaymentSettings> {
  const integration = await loadIntegration(ctx, storeId, 'payments');
  if (!integration) return { enabled: false, providers: ['cod'], defaultMethod: null, secrets: {} };
  const config = integration.config as { providers?: unknown; defaultMethod?: unknown };
  const providers = Array.isArray(config.providers) ? config.providers.filter((p): p is string => typeof p === 'string') : ['cod'];
  return {
    enabled: integration.row.enabled,
    providers: integration.row.enabled ? providers : ['cod'],
    defaultMethod: typeof config.defaultMethod === 'string' ? config.defaultMethod : null,
    secrets: integration.secrets,
  };
}

export interface MethodOption {
  method: string;
  provider: ProviderName;
  available: boolean;
}

/** Every method Souk knows, with whether this store can take it for an amount in `currency`. */
export function methodOptions(config: Config, settings: PaymentSettings, currency: string): MethodOption[] {
  const out: MethodOption[] = [];
  for (const name of PROVIDERS) {
    const a = adapters(config)[name];
    const available =
      settings.providers.includes(name) && a.secrets.every((s) => !!settings.secrets[s]) && (a.currencies === null || a.currencies.includes(currency));
    for (const method of a.methods) out.push({ method, provider: name, available });
  }
  return out;
}
