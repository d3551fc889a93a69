import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../core/context.js';
import { decryptSecret, encryptSecret } from '../core/secrets.js';

/**
 * Custom header values are often the receiver's own credentials: they are stored encrypted like
 * the webhook secret (`headers_enc`), and the plain `headers` column keeps only the names, each
 * with this mask, which is what members who cannot write webhooks see.
 */
export const MASKED_VALUE = '********';

export const maskHeaders = (headers: Record<string, string>) => Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_VALUE]));

export const sealHeaders = (key: Buffer, headers: Record<string, string>) => encryptSecret(key, JSON.stringify(headers));

/** The real values; a row written before encryption (no `headers_enc` yet) still holds them in plain. */
export function openHeaders(key: Buffer, row: { headersEnc: string | null; headers: Record<string, string> }): Record<string, string> {
  return row.headersEnc ? (JSON.parse(decryptSecret(key, row.headersEnc)) as Record<string, string>) : row.headers;
}

/** At start: rows from before encryption get their values sealed and masked (idempotent; replicas may race). */
export async function sealLegacyHeaders(deps: Deps): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  const rows = await em.execute<Array<{ id: string; headers: Record<string, string> }>>(`select id, headers from webhooks where headers_enc is null and headers <> '{}'::jsonb`);
  for (const row of rows) {
    await em.execute('update webhooks set headers_enc = ?, headers = ? where id = ? and headers_enc is null', [
      sealHeaders(deps.config.secretKey, row.headers),
      JSON.stringify(maskHeaders(row.headers)),
      row.id,
    ]);
  }
}
