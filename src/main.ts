import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/embedded.js';
import { startService } from './service.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`souk: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  let service;
  try {
    service = await startService(config);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      console.error(`souk: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const mode = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  console.log(`souk listening on ${service.url} (database: ${mode})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`souk: ${signal} received, shutting down`);
    const timer = setTimeout(() => {
      console.error('souk: shutdown took over 20 s, exiting');
      process.exit(1);
    }, 20_000);
    timer.unref();
    try {
      await service.close();
      process.exit(0);
    } catch (err) {
      console.error('souk: shutdown failed', err);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('souk: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
