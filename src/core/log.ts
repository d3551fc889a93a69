import { pino, type Logger } from 'pino';

/**
 * The one structured logger (pino JSON lines), shared by the HTTP server and every module.
 * Credentials and contact details are censored wherever they appear under these keys.
 */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino(
    {
    level,
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
    // Errors are written at once; ordinary lines are buffered (flushed on exit) to keep logging cheap.
    pino.destination({ fd, sync: fd === 2 }),
  );
}

export type { Logger };

declare module './context.js' {
  interface Deps {
    log: Logger;
  }
}
