import { DriverException } from '@mikro-orm/core';

/**
 * What may be logged. Query strings can carry credentials (a password reset token, an OAuth code
 * or state, a provider's signature): their values are replaced. SQL errors carry the statement
 * with its values inlined (MikroORM formats bound values into the SQL it sends): only
 * PostgreSQL's own message is kept, never the statement, its values or the row detail.
 */
const SECRET_PARAMS = /([?&](?:token|code|state|secret|password|key|hmac|signature|access_token|refresh_token|client_secret|crc_token)=)[^&#]*/gi;

export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, '$1[redacted]');

const isDatabaseError = (err: Error & { severity?: unknown; sqlState?: unknown }) =>
  err instanceof DriverException || typeof err.severity === 'string' || typeof err.sqlState === 'string';

/**
 * An error's message without any SQL statement in front of the database's own words, and
 * without the value PostgreSQL quotes at the end of a conversion error (`...: "the value"`).
 */
export function safeErrorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (!isDatabaseError(err)) return err.message;
  const cut = err.message.lastIndexOf(' - ');
  const own = cut === -1 ? err.message : err.message.slice(cut + 3);
  return `database error: ${own.replace(/: ".*"$/s, ': "[redacted]"')}`;
}

/** The pino `err` serializer: type, code, safe message and a stack whose first line is that message. */
export function serializeError(err: unknown): { type: string; message: string; stack: string; code?: unknown } {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err), stack: '' };
  const message = safeErrorMessage(err);
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return { type: err.name, code: (err as { code?: unknown }).code, message, stack: [`${err.name}: ${message}`, ...frames].join('\n') };
}
