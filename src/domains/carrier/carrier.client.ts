import { createHash } from 'node:crypto';
import type { Ctx, Deps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { CarrierError, CarrierUnsupported, type CarrierAdapter, type CarrierCommune, type CarrierWilaya } from '../../providers/carrier.js';
import { originAllowed } from '../../providers/carrier-http.js';
import { EcotrackCarrier } from '../../providers/ecotrack/ecotrack.js';
import { NoestCarrier } from '../../providers/noest/noest.js';
import { ProcolisCarrier } from '../../providers/procolis/procolis.js';
import { YalidineCarrier } from '../../providers/yalidine/yalidine.js';
import { ZimouCarrier } from '../../providers/zimou/zimou.js';
import { loadIntegration, markIntegration, type LoadedIntegration } from '../integrations/integration.access.js';
import { baseUrlOrigins, CARRIER_PROVIDERS, DEFAULT_ORDER_STATUS_MAP, wilayaCode } from '../integrations/integration.kinds.js';

/** A store's carrier, ready to call: the adapter and the settings the domain reads. */
export interface CarrierHandle {
  storeId: string;
  provider: string;
  /** Names the carrier account in caches (a hash of its credentials: other credentials miss). */
  account: string;
  adapter: CarrierAdapter;
  fromWilaya: number;
  /** Parcel status → order status slug. */
  statusMap: Record<string, string>;
}

/** What an adapter is built from: the integration's settings and decrypted secrets. */
export interface CarrierSettings {
  apiId?: string;
  baseUrl?: string;
  userGuid?: string;
  apiToken?: string;
  apiKey?: string;
}

export function adapterFor(deps: Deps, provider: string, s: CarrierSettings): CarrierAdapter {
  const c = deps.config;
  const token = s.apiToken ?? '';
  switch (provider) {
    case 'yalidine':
      return new YalidineCarrier({ baseUrl: c.yalidineUrl, apiId: s.apiId ?? '', apiToken: token });
    case 'ecotrack':
      return new EcotrackCarrier({ baseUrl: allowedBase(deps, provider, s.baseUrl), apiToken: token });
    case 'procolis':
      return new ProcolisCarrier({ baseUrl: c.procolisUrl, token, key: s.apiKey ?? '' });
    case 'noest':
      return new NoestCarrier({ baseUrl: c.noestUrl, apiToken: token, userGuid: s.userGuid ?? '' });
    case 'zimou':
      return new ZimouCarrier({ baseUrl: c.zimouUrl, apiToken: token });
    default:
      throw new AppError('NOT_CONFIGURED', `The carrier ${provider} is not supported by this server`);
  }
}

/** A per-store base URL, checked against the allow-list at every use (it may have changed since the URL was saved). */
function allowedBase(deps: Deps, provider: string, baseUrl: string | undefined): string {
  const origins = baseUrlOrigins(deps.config, provider);
  if (!baseUrl || !originAllowed(baseUrl, origins)) throw new AppError('NOT_CONFIGURED', `This store's ${provider} baseUrl is not an address this server allows (${origins.join(', ')})`);
  return baseUrl;
}

const setting = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The secrets the integration's provider needs and lacks (none: it can be called). */
function missingSecrets(provider: string, secrets: Record<string, string>): string[] {
  return (CARRIER_PROVIDERS[provider]?.secrets ?? ['apiToken']).filter((name) => !secrets[name]);
}

/** The handle of a loaded integration, or null when it is disabled or incomplete. */
export function handleOf(deps: Deps, storeId: string, loaded: LoadedIntegration | null): CarrierHandle | null {
  if (!loaded || !loaded.row.enabled) return null;
  const provider = loaded.row.provider ?? 'yalidine';
  const from = wilayaCode(loaded.config.fromWilaya);
  if (from === null || missingSecrets(provider, loaded.secrets).length) return null;
  if ((CARRIER_PROVIDERS[provider]?.config ?? []).some((field) => !setting(loaded.config[field]))) return null;
  const settings: CarrierSettings = {
    apiId: setting(loaded.config.apiId),
    baseUrl: setting(loaded.config.baseUrl),
    userGuid: setting(loaded.config.userGuid),
    apiToken: loaded.secrets.apiToken,
    apiKey: loaded.secrets.apiKey,
  };
  let adapter: CarrierAdapter;
  try {
    adapter = adapterFor(deps, provider, settings);
  } catch {
    return null;
  }
  const map = loaded.config.orderStatusMap;
  return {
    storeId,
    provider,
    account: createHash('sha256').update(JSON.stringify([provider, settings])).digest('base64url'),
    adapter,
    fromWilaya: from,
    statusMap: map && typeof map === 'object' ? (map as Record<string, string>) : DEFAULT_ORDER_STATUS_MAP,
  };
}

/** The store's enabled carrier, or 503 NOT_CONFIGURED naming what is missing; `provider`, when given, must be the one configured. */
export async function requireCarrier(ctx: Ctx, storeId: string, provider?: string | null): Promise<CarrierHandle> {
  const loaded = await loadIntegration(ctx, storeId, 'carrier');
  if (!loaded) throw new AppError('NOT_CONFIGURED', 'This store has no carrier integration (PUT /v1/stores/{id}/integrations/carrier)');
  const configured = loaded.row.provider ?? 'yalidine';
  if (provider && provider !== configured) throw new AppError('NOT_CONFIGURED', `This store's carrier integration is ${configured}, not ${provider}`);
  if (!loaded.row.enabled) throw new AppError('NOT_CONFIGURED', "This store's carrier integration is disabled");
  const missing = missingSecrets(configured, loaded.secrets);
  if (missing.length) throw new AppError('NOT_CONFIGURED', `This store's carrier integration has no ${missing.map((m) => `secrets.${m}`).join(' or ')}`);
  const handle = handleOf(ctx.deps, storeId, loaded);
  if (!handle) {
    // A base URL the server no longer allows: adapterFor says so; anything else is incomplete.
    adapterFor(ctx.deps, configured, { baseUrl: setting(loaded.config.baseUrl) });
    throw new AppError('NOT_CONFIGURED', `This store's carrier integration lacks the settings ${configured} needs`);
  }
  return handle;
}

/**
 * A failed carrier call as the API answers it: refused credentials → 502 and the integration
 * becomes `error`; rate limited → 429 with Retry-After; anything else from the carrier → 502.
 */
export async function carrierFailure(ctx: Ctx, handle: Pick<CarrierHandle, 'storeId' | 'provider'>, err: unknown): Promise<unknown> {
  if (err instanceof CarrierUnsupported) return new AppError('NOT_IMPLEMENTED', err.message);
  if (!(err instanceof CarrierError)) return err;
  switch (err.kind) {
    case 'auth':
      await markIntegration(ctx, handle.storeId, 'carrier', { ok: false, error: err.message });
      return new AppError('BAD_GATEWAY', `The carrier refused this store's credentials (${handle.provider}); check the carrier integration`);
    case 'rate_limited':
      return new AppError('RATE_LIMITED', `The carrier's rate limit is reached; retry in ${err.retryAfter ?? 60} s`, undefined, { 'retry-after': String(err.retryAfter ?? 60) });
    default:
      return new AppError('BAD_GATEWAY', err.message);
  }
}

export async function callCarrier<T>(ctx: Ctx, handle: CarrierHandle, fn: (a: CarrierAdapter) => Promise<T>): Promise<T> {
  try {
    return await fn(handle.adapter);
  } catch (err) {
    throw await carrierFailure(ctx, handle, err);
  }
}

/** Reference data changes rarely: kept for a day per carrier account and credentials, in each process. */
const CACHE_MS = 24 * 3600_000;
const cache = new Map<string, { expires: number; value: Promise<unknown> }>();

function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.value as Promise<T>;
  const value = load();
  cache.set(key, { expires: Date.now() + CACHE_MS, value });
  // A failure is not kept: the next call asks again.
  value.catch(() => cache.delete(key));
  return value;
}

export function carrierWilayas(ctx: Ctx, handle: CarrierHandle): Promise<CarrierWilaya[]> {
  return callCarrier(ctx, handle, (a) => cached(`${handle.provider}|${handle.account}|wilayas`, () => a.wilayas()));
}

export function carrierCommunes(ctx: Ctx, handle: CarrierHandle, wilaya?: number): Promise<CarrierCommune[]> {
  return callCarrier(ctx, handle, (a) => cached(`${handle.provider}|${handle.account}|communes|${wilaya ?? '*'}`, () => a.communes(wilaya)));
}
