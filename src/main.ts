import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/embedded.js';
import { createLogger } from './core/log.js';
import { startService } from './service.js';
import { entryPoints } from './server/explore.js';

async function main() {
  // Refusals to start go to stderr, where supervisors and the shell show them.
  const early = createLogger(process.env.LOG_LEVEL || 'info', 2);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      early.fatal(`souk: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config.logLevel, 1, { buffered: true });
  let service;
  try {
    service = await startService(config, { log });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      early.fatal(`souk: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  // The start and shutdown lines are written whatever LOG_LEVEL says (supervisors and tests read them).
  const lifecycle = createLogger('info');
  // A worker serves only its probes: the explorer, reference and console are the web role's.
  const where = config.role === 'worker' ? null : entryPoints(service.url);
  lifecycle.info(
    { url: service.url, database, role: config.role, ...where },
    where
      ? `souk listening on ${service.url} (database: ${database}, role: ${config.role}); GraphiQL ${where.graphql}, REST reference ${where.reference}, console ${where.dashboard}`
      : `souk listening on ${service.url} (database: ${database}, role: ${config.role})`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    lifecycle.info({ signal }, `${signal} received, shutting down`);
    const timer = setTimeout(() => {
      log.fatal('shutdown took over 20 s, exiting');
      process.exit(1);
    }, 20_000);
    timer.unref();
    try {
      await service.close();
      process.exit(0);
    } catch (err) {
      log.fatal({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** True once the service listens (scripts/start.mjs then keeps the code that its start compiled). */
export const started: Promise<boolean> = main().then(
  () => true,
  (err) => {
    createLogger('info', 2).fatal({ err: err instanceof Error ? err.message : String(err) }, 'souk: failed to start');
    process.exit(1);
  },
);
