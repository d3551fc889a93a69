import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { pgConnection } from '../src/config.js';
import { freePort } from './helpers.js';

/**
 * A physical streaming replica of a test's PostgreSQL server: pg_basebackup into a temporary
 * directory, then pg_ctl on a free 127.0.0.1 port (its socket in that directory). PostgreSQL
 * refuses to run as root, so as root its binaries run as the postgres user.
 */
export interface PgReplica {
  port: number;
  /** `database` on the replica, as `user` of the primary's URL. */
  url(database: string): string;
  query<T extends pg.QueryResultRow>(database: string, sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
  /** Starts it again after `stop()`: it resumes streaming where it stopped. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

const run = promisify(execFile);

/** Debian's server binaries, newest version first. */
function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  for (const v of readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'pg_basebackup')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

const asRoot = process.getuid?.() === 0;
const pgCmd = (bin: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args));

/** The replica, or why one cannot be made here (to skip with). */
export async function makeReplica(primaryUrl: string): Promise<PgReplica | { skip: string }> {
  const bin = serverBin();
  if (!bin) return { skip: 'needs the PostgreSQL server binaries (pg_basebackup, pg_ctl under /usr/lib/postgresql/*/bin)' };
  if (asRoot && !(await run('id', ['-u', 'postgres']).then(() => true, () => false))) return { skip: 'runs as root without a postgres user to run the replica as' };
  const p = pgConnection(primaryUrl);
  const dir = mkdtempSync(join(tmpdir(), 'souk-replica-'));
  const data = join(dir, 'data');
  if (asRoot) await run('chown', ['postgres:postgres', dir]);
  try {
    await pgCmd(join(bin, 'pg_basebackup'), ['-h', p.host, '-p', String(p.port), '-U', p.user, '-D', data, '-R', '-X', 'stream', '-c', 'fast']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = String((err as { stderr?: unknown }).stderr ?? err).trim();
    return { skip: `this server refuses replication connections (pg_hba.conf needs "host replication all 127.0.0.1/32 trust"; .ci/run adds it): ${stderr}` };
  }
  // A standby needs these at least as high as its primary's.
  const admin = new pg.Client({ ...p });
  await admin.connect();
  const { rows } = await admin.query<{ name: string; setting: string }>(
    "select name, setting from pg_settings where name in ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')",
  );
  await admin.end();
  const port = await freePort();
  const conf = ["listen_addresses = '127.0.0.1'", `port = ${port}`, `unix_socket_directories = '${dir}'`, 'hot_standby = on', 'fsync = off', 'shared_buffers = 32MB', ...rows.map((r) => `${r.name} = ${r.setting}`)];
  writeFileSync(join(data, 'postgresql.conf'), conf.join('\n') + '\n');
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  if (asRoot) await run('chown', ['-R', 'postgres:postgres', dir]);
  let running = false;
  const stop = async () => {
    if (!running) return;
    running = false;
    await pgCmd(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  };
  const start = async () => {
    await pgCmd(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    running = true;
  };
  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: (database) => `postgres://${encodeURIComponent(p.user)}@127.0.0.1:${port}/${database}`,
    async query(database, sql, params = []) {
      const c = new pg.Client({ host: '127.0.0.1', port, user: p.user, database });
      await c.connect();
      try {
        return (await c.query(sql, params)).rows;
      } finally {
        await c.end();
      }
    },
    stop,
    start,
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
