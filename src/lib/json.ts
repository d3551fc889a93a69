import { assertJsonLimits, METADATA_MAX_BYTES } from '../core/input.js';

/** JSON with object keys sorted at every level: equal values give equal text (jsonb reorders keys). */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The size of a value as UTF-8 JSON, in bytes. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * RFC 7396 JSON Merge Patch: an object patch merges member by member, `null` removes a member,
 * anything else (arrays included) replaces the target whole.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // defineProperty: a `__proto__` member stays a member instead of replacing the prototype.
    else Object.defineProperty(result, key, { value: mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** Metadata after an RFC 7396 merge patch, held to the limits of metadata (64 KiB, 32 levels) at `metadataPatch`. */
export function patchedMetadata(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = mergePatch(current, patch) as Record<string, unknown>;
  assertJsonLimits(merged, 'metadataPatch', { maxBytes: METADATA_MAX_BYTES });
  return merged;
}

/** U+0000 and unpaired surrogates: valid in JSON text, refused by PostgreSQL's text and jsonb. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with each character PostgreSQL cannot store replaced by U+FFFD (as a UTF-8 decoder would). */
export const storableText = (s: string): string => s.replace(UNSTORABLE, '\ufffd');

/** A parsed JSON value with every string, keys included, made storable. */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    // defineProperty: a `__proto__` member stays a member.
    Object.defineProperty(out, storableText(key), { value: storableJson(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A provider's JSON body, parsed after its signature was checked on the raw bytes: text that
 * cannot be stored is cleaned here, once, so a signed event never fails on it downstream (a
 * provider retries what fails, forever). Throws SyntaxError on malformed JSON.
 */
export const parseProviderJson = (text: string): unknown => storableJson(JSON.parse(text));
