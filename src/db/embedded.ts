import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * An embedded PostgreSQL (PGlite) served over a unix socket, so MikroORM's own
 * PostgreSQL driver and the queue engine talk to it as to any server.
 */
export interface EmbeddedDatabase {
  /** Directory holding the socket: pass it as the driver's `host`. */
  socketDir: string;
  port: number;
  /** In-process LISTEN: PGlite is one session, so a NOTIFY of any connection reaches it at commit. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class DataDirLockedError extends Error {}

const SOCKET_PORT = 5432;

/**
 * PGlite's default shared_buffers is 128 MB, and it touches all of it at start. A store's working
 * set is far smaller; 16 MB keeps the resident size of the whole service near 250 MB.
 */
const SHARED_BUFFERS = ['-c', 'shared_buffers=16MB'];

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite has no cross-process lock: a pid file stops a second process on the same files. */
function lockDataDir(dataDir: string): () => void {
  const lockFile = join(dataDir, 'souk.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by another Souk process (pid ${pid}); the embedded database allows one process. Stop it, or set SOUK_DATA_DIR to another directory, or set DATABASE_URL to share a PostgreSQL server.`,
        );
      }
      // A stale lock left by a process that died.
      unlinkSync(lockFile);
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`);
}

/**
 * `template`: an initialized, migrated database directory to copy when `dataDir` has none yet
 * (see makeEmbeddedTemplate). Without one, PGlite runs initdb, which takes seconds and ~800 MB.
 */
export async function startEmbedded(dataDir: string, maxConnections: number, template?: string): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  let tempSocketDir: string | undefined;
  try {
    const pgdata = join(dataDir, 'pgdata');
    if (template && !existsSync(pgdata) && existsSync(template)) {
      // Copied beside and renamed in, so a copy cut short is never taken for a database.
      const partial = `${pgdata}.partial`;
      rmSync(partial, { recursive: true, force: true });
      cpSync(template, partial, { recursive: true });
      renameSync(partial, pgdata);
    }
    // Loaded here, not with the service: a process on PostgreSQL never needs it.
    const require = createRequire(import.meta.url);
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    const { PGLiteSocketServer } = require('@electric-sql/pglite-socket') as typeof import('@electric-sql/pglite-socket');
    db = await PGlite.create({ dataDir: pgdata, startParams: [...PGlite.defaultStartParams, ...SHARED_BUFFERS] });
    // Unix socket paths are limited to ~107 bytes; fall back to a private temp dir.
    let socketDir = dataDir;
    if (join(socketDir, `.s.PGSQL.${SOCKET_PORT}`).length > 100) {
      tempSocketDir = mkdtempSync(join(tmpdir(), 'souk-'));
      socketDir = tempSocketDir;
    }
    const path = join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
    rmSync(path, { force: true });
    server = new PGLiteSocketServer({ db, path, maxConnections });
    await server.start();
    const s = server;
    const d = db;
    return {
      socketDir,
      port: SOCKET_PORT,
      listen: (channel, onPayload) => d.listen(channel, onPayload),
      async close() {
        await s.stop();
        await d.close();
        rmSync(path, { force: true });
        if (tempSocketDir) rmSync(tempSocketDir, { recursive: true, force: true });
        unlock();
      },
    };
  } catch (err) {
    await server?.stop().catch(() => {});
    await db?.close().catch(() => {});
    if (tempSocketDir) rmSync(tempSocketDir, { recursive: true, force: true });
    unlock();
    throw err;
  }
}
