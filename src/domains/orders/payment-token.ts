import { randomBytesPooled } from '../../lib/random.js';
import { PAYMENT_TOKEN_PREFIX, sha256 } from '../../core/context.js';

/** A new order payment token: opaque, 32 random bytes; only its SHA-256 is stored. */
export function newPaymentToken(): { token: string; hash: string } {
  const token = `${PAYMENT_TOKEN_PREFIX}${randomBytesPooled(32).toString('base64url')}`;
  return { token, hash: sha256(token) };
}
