import { createHmac, randomBytes } from 'node:crypto';

export { encryptSecret, decryptSecret } from '../core/secrets.js';

/** `whsec_` + 48 lowercase hex characters: 24 bytes (192 bits) from the CSPRNG. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/** HMAC-SHA256 keyed with the whole secret string (prefix included), over the exact bytes sent. */
export const sign = (secret: string, body: Buffer) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
