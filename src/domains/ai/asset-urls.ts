import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';

/** Signed asset URLs stay valid this long after they are handed out. */
export const ASSET_URL_TTL_S = 24 * 3600;

/** A key of its own, derived from SOUK_SECRET_KEY, so an asset signature is no other signature. */
function urlKey(config: Config): Buffer {
  return createHmac('sha256', config.secretKey).update('souk/ai-asset-urls/v1').digest();
}

function signature(config: Config, id: string, expires: number): string {
  return createHmac('sha256', urlKey(config)).update(`${id}\n${expires}`).digest('base64url');
}

/** `/v1/ai/assets/{id}?expires=…&signature=…`, valid until `expires` (Unix seconds). */
export function signedAssetPath(config: Config, id: string, expires: number): string {
  return `/v1/ai/assets/${encodeURIComponent(id)}?expires=${expires}&signature=${signature(config, id, expires)}`;
}

/** The absolute signed URL handed out in generations: valid 24 h from now. */
export function assetUrl(config: Config, id: string, now = Date.now()): string {
  return `${config.publicUrl}${signedAssetPath(config, id, Math.floor(now / 1000) + ASSET_URL_TTL_S)}`;
}

/** True when the signature is ours for this id and expiry, and the expiry has not passed. */
export function verifyAssetSignature(config: Config, id: string, expires: unknown, sig: unknown, now = Date.now()): boolean {
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
  const at = Number(expires);
  if (at * 1000 <= now) return false;
  const expected = Buffer.from(signature(config, id, at));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
