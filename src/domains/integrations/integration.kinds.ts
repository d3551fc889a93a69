import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Config } from '../../config.js';
import { AppError, invalid, type FieldError } from '../../core/errors.js';
import { originAllowed } from '../../providers/carrier-http.js';

/**
 * The typed keys of the registry (CONTRACT-2 §13): each fixes its kind, the providers it
 * accepts, a JSON Schema for `config` and the names its secrets may take. Any other key is
 * `custom`: free JSON config and freely named secrets.
 */
export interface IntegrationKind {
  kind: string;
  /** Accepted providers; the first is the default when a PUT names none. Empty: no provider. */
  providers: readonly string[];
  validate: ValidateFunction;
  /** Secret names it accepts; null: any name of SECRET_NAME. */
  secrets: readonly string[] | null;
  /** Checks Ajv cannot state plainly (a wilaya code as number or string, a provider's own settings), after the schema. */
  check?: (config: Record<string, unknown>, provider: string | null, env?: Config) => void;
  /** Config fields each provider requires, checked before the schema (and every other provider's fields refused). */
  providerConfig?: Record<string, readonly string[]>;
  /** Secret names each provider uses, when they differ by provider. */
  providerSecrets?: Record<string, readonly string[]>;
}

export const KEY_PATTERN = /^[a-z][a-z0-9-]{1,40}$/;
/** Used by sub-resources with their own routes (`/integrations/webhooks`, `/integrations/connectors/...`). */
export const RESERVED_KEYS = new Set(['webhooks', 'connectors']);
export const MAX_INTEGRATIONS = 50;
/** Bytes of a config's JSON text. */
export const MAX_CONFIG_BYTES = 16 * 1024;
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
export const MAX_SECRETS = 20;
export const MAX_SECRET_LENGTH = 4096;

/** Parcel statuses a carrier reports (the keys of `orderStatusMap`). */
export const PARCEL_STATUSES = [
  'creating', 'pending', 'picked_up', 'in_transit', 'out_for_delivery', 'on_hold', 'delivered', 'failed', 'returning', 'returned', 'cancelled',
] as const;

/**
 * The carriers of the `carrier` integration: the config fields and the secrets each needs, and
 * whether it pushes status changes to the carrier webhook (the others are polled more often).
 * The first is the default provider.
 */
export const CARRIER_PROVIDERS: Record<string, { config: readonly string[]; secrets: readonly string[]; pushes: boolean }> = {
  yalidine: { config: ['apiId'], secrets: ['apiToken'], pushes: true },
  ecotrack: { config: ['baseUrl'], secrets: ['apiToken'], pushes: false },
  procolis: { config: [], secrets: ['apiToken', 'apiKey'], pushes: false },
  noest: { config: ['userGuid'], secrets: ['apiToken'], pushes: false },
  zimou: { config: [], secrets: ['apiToken'], pushes: false },
};
const CARRIER_SETTINGS = ['apiId', 'baseUrl', 'userGuid'];

/** The origins a carrier's per-store `baseUrl` may name, by provider. */
export function baseUrlOrigins(env: Config, provider: string): readonly string[] {
  return provider === 'ecotrack' ? env.ecotrackOrigins : [];
}

export const DEFAULT_ORDER_STATUS_MAP: Record<string, string> = { in_transit: 'shipped', delivered: 'delivered', returned: 'returned' };

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });

const nullableString = (max: number) => ({ type: ['string', 'null'], maxLength: max });

/** Wilaya codes 1..69 (the 2025 territorial reform), as a number or its decimal text. */
export function wilayaCode(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,2}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 69 ? n : null;
}

export const KINDS: Record<string, IntegrationKind> = {
  carrier: {
    kind: 'carrier',
    providers: Object.keys(CARRIER_PROVIDERS),
    secrets: ['apiToken', 'apiKey'],
    providerConfig: Object.fromEntries(Object.entries(CARRIER_PROVIDERS).map(([p, d]) => [p, d.config])),
    providerSecrets: Object.fromEntries(Object.entries(CARRIER_PROVIDERS).map(([p, d]) => [p, d.secrets])),
    validate: ajv.compile({
      type: 'object',
      additionalProperties: false,
      required: ['fromWilaya'],
      properties: {
        apiId: { type: 'string', minLength: 1, maxLength: 200 },
        baseUrl: { type: 'string', minLength: 1, maxLength: 200 },
        userGuid: { type: 'string', minLength: 1, maxLength: 200 },
        fromWilaya: { type: ['integer', 'string'] },
        orderStatusMap: {
          type: 'object',
          propertyNames: { enum: [...PARCEL_STATUSES] },
          additionalProperties: { type: 'string', minLength: 1, maxLength: 100 },
        },
      },
    }),
    check: (config, provider, env) => {
      if (wilayaCode(config.fromWilaya) === null) throw invalid('config.fromWilaya', 'must be a wilaya code from 1 to 69');
      const p = provider ?? 'yalidine';
      for (const field of CARRIER_SETTINGS) {
        if (config[field] !== undefined && !CARRIER_PROVIDERS[p]?.config.includes(field)) throw invalid(`config.${field}`, `is not a setting of ${p}`);
      }
      if (typeof config.baseUrl === 'string') {
        const origins = env ? baseUrlOrigins(env, p) : [];
        if (!originAllowed(config.baseUrl, origins)) throw invalid('config.baseUrl', `must be an address of ${p} allowed by this server (${origins.join(', ')}), without path, query or credentials`);
      }
    },
  },
  payments: {
    kind: 'payments',
    providers: [],
    secrets: ['chargilySecretKey', 'stripeSecretKey', 'stripeWebhookSecret'],
    validate: ajv.compile({
      type: 'object',
      additionalProperties: false,
      required: ['providers'],
      properties: {
        providers: { type: 'array', uniqueItems: true, maxItems: 3, items: { enum: ['cod', 'chargily', 'stripe'] } },
        defaultMethod: { type: 'string', minLength: 1, maxLength: 50 },
      },
    }),
  },
  'ads-platform': {
    kind: 'ads-platform',
    providers: ['meta'],
    secrets: ['accessToken', 'conversionsApiAccessToken'],
    // Known settings are typed; the ads connection may keep more of its own state beside them.
    validate: ajv.compile({
      type: 'object',
      properties: {
        adAccountId: nullableString(100),
        pixelId: nullableString(100),
        currency: nullableString(3),
        conversionsApi: {
          type: 'object',
          properties: {
            enabled: { type: 'boolean' },
            eventMap: { type: 'object', propertyNames: { enum: ['created', 'confirmed', 'paid', 'delivered'] }, additionalProperties: { type: 'string', minLength: 1, maxLength: 100 } },
            testEventCode: nullableString(100),
          },
        },
      },
    }),
  },
  'platform-connector': {
    kind: 'platform-connector',
    providers: ['shopify'],
    secrets: [],
    validate: ajv.compile({
      type: 'object',
      properties: {
        sync: { type: 'object', additionalProperties: false, properties: { products: { type: 'boolean' }, orders: { type: 'boolean' } } },
      },
    }),
  },
};

const CUSTOM: IntegrationKind = { kind: 'custom', providers: [], secrets: null, validate: ajv.compile({ type: 'object' }) };

/** A key's definition; refuses malformed and reserved keys with 400 at `key`. */
export function kindOf(key: string): IntegrationKind {
  if (!KEY_PATTERN.test(key)) throw invalid('key', 'must match ^[a-z][a-z0-9-]{1,40}$');
  if (RESERVED_KEYS.has(key)) throw invalid('key', `is reserved (${key} have their own routes)`);
  return KINDS[key] ?? CUSTOM;
}

function fieldError(e: ErrorObject): FieldError {
  const path = ['config', ...e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))];
  if (e.keyword === 'required') return { path: [...path, String(e.params.missingProperty)].join('.'), message: 'is required' };
  if (e.keyword === 'additionalProperties') return { path: [...path, String(e.params.additionalProperty)].join('.'), message: 'is not a known field' };
  // A key refused by `propertyNames` is reported by its subschema's error, which names it.
  if (e.propertyName !== undefined) return { path: [...path, e.propertyName].join('.'), message: 'is not a known name' };
  if (e.keyword === 'enum') return { path: path.join('.'), message: `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}` };
  return { path: path.join('.'), message: e.message ?? 'is invalid' };
}

/** Validates a whole config against the key's kind and provider: 413 over 16 KiB, 400 with the field's path otherwise. */
export function validateConfig(def: IntegrationKind, config: unknown, provider: string | null = null, env?: Config): Record<string, unknown> {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw invalid('config', 'must be an object');
  if (Buffer.byteLength(JSON.stringify(config), 'utf8') > MAX_CONFIG_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `config: must be at most ${MAX_CONFIG_BYTES} bytes of JSON`, [{ path: 'config', message: `must be at most ${MAX_CONFIG_BYTES} bytes of JSON` }]);
  }
  for (const field of (provider && def.providerConfig?.[provider]) || []) {
    if ((config as Record<string, unknown>)[field] === undefined) throw invalid(`config.${field}`, 'is required');
  }
  if (!def.validate(config)) {
    const first = fieldError(def.validate.errors![0]);
    throw new AppError('VALIDATION_FAILED', `${first.path}: ${first.message}`, [first]);
  }
  def.check?.(config as Record<string, unknown>, provider, env);
  return config as Record<string, unknown>;
}

/**
 * The provider after a write: typed kinds take one of theirs (their default when none is named),
 * custom ones any short name; `keep` is what an omitted provider leaves (PATCH: the current one).
 */
export function validateProvider(def: IntegrationKind, provider: string | null | undefined, keep: string | null): string | null {
  if (provider === undefined) return def.kind === 'custom' ? keep : (keep ?? def.providers[0] ?? null);
  if (provider === null) return def.kind === 'custom' ? null : (def.providers[0] ?? null);
  if (def.kind === 'custom') {
    if (!/^[a-z0-9][a-z0-9_.-]{0,99}$/i.test(provider)) throw invalid('provider', 'must be 1 to 100 letters, digits, dots, dashes or underscores');
    return provider;
  }
  if (!def.providers.includes(provider)) {
    throw invalid('provider', def.providers.length ? `must be ${def.providers.join(' or ')}` : 'is not used by this integration');
  }
  return provider;
}

/** A secret name and value the kind (and, once known, the provider) accepts. */
export function checkSecret(def: IntegrationKind, name: string, value: unknown, allowNull: boolean, provider?: string | null): void {
  const path = `secrets.${name}`;
  const names = (provider && def.providerSecrets?.[provider]) || def.secrets;
  if (names ? !names.includes(name) : !SECRET_NAME.test(name)) {
    throw invalid(path, names ? (names.length ? `is not a secret of this integration (${names.join(', ')})` : 'this integration has no secrets') : 'is not a valid secret name');
  }
  if (value === null && allowNull) return;
  if (typeof value !== 'string' || value.length === 0) throw invalid(path, allowNull ? 'must be a non-empty string, or null to remove it' : 'must be a non-empty string');
  if (value.length > MAX_SECRET_LENGTH) throw invalid(path, `must be at most ${MAX_SECRET_LENGTH} characters`);
}
