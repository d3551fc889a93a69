import { pino, type Logger } from 'pino';
import { DriverException } from '@mikro-orm/core';

/**
 * SQL errors carry the statement with its values inlined (MikroORM formats bound values into the
 * SQL it sends: argon2 hashes, encrypted secrets): only PostgreSQL's own message is logged, never
 * the statement, its values or the row detail.
 */
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

/**
 * The one structured logger (pino JSON lines), shared by the HTTP server and every module.
 * Credentials and contact details are censored wherever they appear under these keys.
 */
/** How long a buffered line may wait before it is written. */
export const LOG_FLUSH_MS = 200;

export function createLogger(level: string, fd: 1 | 2 = 1, opts: { buffered?: boolean } = {}): Logger {
  // Buffered: lines go out 4 KiB or LOG_FLUSH_MS at a time, not one write(2) per request line
  // (at info level that write was half the cost of a /healthz answer).
  const destination = pino.destination({ fd, sync: fd === 2, ...(opts.buffered ? { minLength: 4096 } : {}) });
  if (opts.buffered) setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return pino(
    {
    level,
    serializers: { err: serializeError },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.password',
        '*.token',
        '*.secret',
        '*.email',
        'email',
        'to',
      ],
      censor: '[redacted]',
    },
    },
    // stderr is written at once; stdout asynchronously (flushed on exit).
    destination,
  );
}

export type { Logger };

declare module './context.js' {
  interface Deps {
    log: Logger;
  }
}
