import anyAscii from 'any-ascii';
import { isSupportedCountry } from 'libphonenumber-js/min';
import type { Config } from '../../config.js';
import { AppError, type FieldError } from '../../core/errors.js';

/**
 * A store's handle and its storefront settings (CONTRACT-3 §17.1): what anonymous shoppers may
 * do with the store. Kept as a JSON object on the store row; a key absent there takes the default.
 */

export const STORE_SLUG = /^[a-z0-9][a-z0-9-]*[a-z0-9]$/;
export const STORE_SLUG_MIN = 3;
export const STORE_SLUG_MAX = 48;
/** Handles the storefront's own routes use as path segments (`/v1/storefront/orders/current`). */
const RESERVED_SLUGS: ReadonlySet<string> = new Set(['orders']);

export function isStoreSlug(slug: string): boolean {
  return slug.length >= STORE_SLUG_MIN && slug.length <= STORE_SLUG_MAX && STORE_SLUG.test(slug) && !RESERVED_SLUGS.has(slug);
}

/**
 * The handle a name suggests: transliterated to ASCII, lowered, every run of other characters a
 * dash; short ones are padded with `-shop`, long ones cut where a `-N` suffix still fits.
 */
export function slugBase(name: string): string {
  let s = anyAscii(name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!s) s = 'shop';
  if (s.length < STORE_SLUG_MIN) s = `${s}-shop`;
  s = s.slice(0, STORE_SLUG_MAX - 4).replace(/-+$/, '');
  return RESERVED_SLUGS.has(s) ? `${s}-shop` : s;
}

/** The first of `base`, `base-2`, `base-3`, ... that `taken` does not hold. */
export function freeSlugOf(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export interface StorefrontLimits {
  /** Orders per buyer address in 10 minutes. */
  checkoutsPerAddress: number;
  /** Orders per phone in 24 hours. */
  checkoutsPerPhone: number;
  /** Reads and cart pricing per buyer address in a minute. */
  readsPerAddress: number;
}

export interface StorefrontSettings {
  enabled: boolean;
  checkoutEnabled: boolean;
  showStockLevels: boolean;
  allowedOrigins: string[];
  phoneRegion: string;
  maxItems: number;
  maxQuantity: number;
  limits: StorefrontLimits;
}

/** The windows of the limits, in ms (§17.1). */
export const LIMIT_WINDOWS: Record<keyof StorefrontLimits, number> = {
  checkoutsPerAddress: 10 * 60_000,
  checkoutsPerPhone: 24 * 3600_000,
  readsPerAddress: 60_000,
};

/** How a shopper's national phone number is read when the store names no region. */
export const DEFAULT_PHONE_REGION = 'DZ';

const MAX_ORIGINS = 50;
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/;

/** The settings with every default filled in; `stored` is what the store row keeps (possibly partial). */
export function storefrontSettings(stored: unknown, config: Pick<Config, 'storefrontMax'>): StorefrontSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Partial<StorefrontSettings>;
  const limits = (s.limits ?? {}) as Partial<StorefrontLimits>;
  const max = config.storefrontMax;
  return {
    enabled: s.enabled ?? true,
    checkoutEnabled: s.checkoutEnabled ?? true,
    showStockLevels: s.showStockLevels ?? false,
    allowedOrigins: s.allowedOrigins ?? [],
    phoneRegion: s.phoneRegion ?? DEFAULT_PHONE_REGION,
    maxItems: s.maxItems ?? 50,
    maxQuantity: s.maxQuantity ?? 100,
    limits: {
      // An operator who lowers a bound lowers every store that kept the default.
      checkoutsPerAddress: Math.min(limits.checkoutsPerAddress ?? 10, max.checkoutsPerAddress),
      checkoutsPerPhone: Math.min(limits.checkoutsPerPhone ?? 5, max.checkoutsPerPhone),
      readsPerAddress: Math.min(limits.readsPerAddress ?? 600, max.readsPerAddress),
    },
  };
}

/** A change of the settings as the store update takes it: every field optional, limits one by one. */
export interface StorefrontSettingsPatch {
  enabled?: boolean | null;
  checkoutEnabled?: boolean | null;
  showStockLevels?: boolean | null;
  allowedOrigins?: string[] | null;
  phoneRegion?: string | null;
  maxItems?: number | null;
  maxQuantity?: number | null;
  limits?: Partial<Record<keyof StorefrontLimits, number | null>> | null;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * The stored object after a patch, checked field by field (400 with every path at fault). Only
 * what the patch names changes; `null` puts a field back to its default.
 */
export function patchStorefront(stored: unknown, patch: StorefrontSettingsPatch, config: Pick<Config, 'storefrontMax'>, path = 'storefront'): Record<string, unknown> {
  const next: Record<string, unknown> = { ...(stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {}) };
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ path: `${path}.${field}`, message });
  const set = (field: string, value: unknown) => {
    if (value === null) delete next[field];
    else next[field] = value;
  };
  for (const field of ['enabled', 'checkoutEnabled', 'showStockLevels'] as const) {
    const v = patch[field];
    if (v === undefined) continue;
    if (v !== null && typeof v !== 'boolean') fail(field, 'must be true or false');
    else set(field, v);
  }
  if (patch.allowedOrigins !== undefined) {
    const list = patch.allowedOrigins;
    if (list === null) set('allowedOrigins', null);
    else if (!Array.isArray(list)) fail('allowedOrigins', 'must be a list of origins');
    else if (list.length > MAX_ORIGINS) fail('allowedOrigins', `must hold at most ${MAX_ORIGINS} origins`);
    else {
      const origins: string[] = [];
      list.forEach((o, i) => {
        const lowered = typeof o === 'string' ? o.trim().toLowerCase() : '';
        if (!ORIGIN.test(lowered) || !validPort(lowered)) fail(`allowedOrigins.${i}`, 'must be an origin like https://shop.example (scheme, host and optional port; no path)');
        else if (!origins.includes(lowered)) origins.push(lowered);
      });
      set('allowedOrigins', origins);
    }
  }
  if (patch.phoneRegion !== undefined) {
    const r = patch.phoneRegion;
    if (r === null) set('phoneRegion', null);
    else if (typeof r !== 'string' || !/^[A-Za-z]{2}$/.test(r) || !isSupportedCountry(r.toUpperCase())) fail('phoneRegion', 'must be an ISO 3166-1 alpha-2 country code with a phone numbering plan, e.g. DZ');
    else set('phoneRegion', r.toUpperCase());
  }
  const bounded = (field: 'maxItems' | 'maxQuantity', max: number) => {
    const v = patch[field];
    if (v === undefined) return;
    if (v !== null && (!isInt(v) || v < 1 || v > max)) fail(field, `must be an integer from 1 to ${max}`);
    else set(field, v);
  };
  // The order's own bounds (items per order, quantity per item).
  bounded('maxItems', 500);
  bounded('maxQuantity', 100_000);
  if (patch.limits !== undefined) {
    if (patch.limits === null) set('limits', null);
    else {
      const limits: Record<string, unknown> = { ...((next.limits as Record<string, unknown> | undefined) ?? {}) };
      for (const key of Object.keys(LIMIT_WINDOWS) as Array<keyof StorefrontLimits>) {
        const v = patch.limits[key];
        if (v === undefined) continue;
        const bound = config.storefrontMax[key];
        if (v === null) delete limits[key];
        else if (!isInt(v) || v < 1) fail(`limits.${key}`, 'must be a positive integer');
        else if (v > bound) fail(`limits.${key}`, `must be at most ${bound} (this server's bound)`);
        else limits[key] = v;
      }
      set('limits', Object.keys(limits).length ? limits : null);
    }
  }
  if (errors.length) throw new AppError('VALIDATION_FAILED', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
  return next;
}

function validPort(origin: string): boolean {
  const m = /:(\d{1,5})$/.exec(origin.replace(/^https?:\/\//, ''));
  return !m || (Number(m[1]) >= 1 && Number(m[1]) <= 65535);
}
