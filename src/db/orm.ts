import { EventEmitter } from 'node:events';
import pg from 'pg';
import { MikroORM, ReflectMetadataProvider, type Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { startEmbedded, type EmbeddedDatabase } from './embedded.js';
import { listenChannel, type Listener } from './listen.js';
import type { Deps } from '../core/context.js';

export const ORM_POOL_MAX = 10;
export const QUEUE_POOL_MAX = 6;
/**
 * pglite-socket multiplexes connections per protocol message, so two connections' extended-query
 * messages can interleave on the one PGlite session ("unnamed prepared statement does not exist").
 * Embedded mode therefore runs every query, the queue's included, over one connection.
 */
export const EMBEDDED_POOL_MAX = 1;

declare module '../core/context.js' {
  interface Deps {
    /** How other clients (the queue engine, LISTEN) reach the database. */
    db: DatabaseTarget;
  }
}

/** How to reach the database, whichever kind it is. */
export interface DatabaseTarget {
  /** node-postgres connection settings for other clients (the queue engine, LISTEN). */
  connection: { connectionString?: string; host?: string; port?: number; database?: string; user?: string };
  embedded: boolean;
  /**
   * Calls `onPayload` for each NOTIFY on `channel` (committed transactions only); null after a
   * reconnect, when notifications may have been missed. Returns how to stop listening.
   */
  listen(deps: Deps, channel: string, name: string, onPayload: (payload: string | null) => void): Promise<Listener>;
  /**
   * NOTIFYs on POOLED_CHANNELS as the ORM's own connections receive them. A session gets the
   * notifications of its own transaction before its COMMIT answers, so a cache invalidated from
   * here is already clean when the write that changed it returns.
   */
  pooled: EventEmitter;
  close(): Promise<void>;
}

/** Channels every ORM connection listens on (see DatabaseTarget.pooled). */
export const POOLED_CHANNELS = ['souk_auth'];

export function ormOptions(target: DatabaseTarget): Options<PostgreSqlDriver> {
  const c = target.connection;
  return {
    driver: PostgreSqlDriver,
    entities: ENTITIES,
    metadataProvider: ReflectMetadataProvider,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    ...(c.connectionString ? { clientUrl: c.connectionString } : { host: c.host, port: c.port, dbName: c.database, user: c.user }),
    pool: {
      min: 0,
      max: target.embedded ? EMBEDDED_POOL_MAX : ORM_POOL_MAX,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.on('notification', (msg) => target.pooled.emit(msg.channel, msg.payload ?? ''));
        conn.query(POOLED_CHANNELS.map((c) => `listen ${c}`).join('; '), (err: Error | null) => done(err, conn));
      },
    },
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    forceUtcTimezone: true,
    // Migration progress goes through our own start line, not the ORM's console logger.
    logger: () => {},
    // knex must not format bound values into the messages of failed queries (the queue's job data).
    driverOptions: { compileSqlOnError: false },
    allowGlobalContext: false,
    debug: false,
  };
}

/** A PostgreSQL server: nothing to start or stop here. */
export function serverTarget(url: string): DatabaseTarget {
  return { connection: { connectionString: url }, embedded: false, listen: listenChannel, pooled: new EventEmitter(), async close() {} };
}

export async function openDatabase(config: Config): Promise<DatabaseTarget> {
  if (config.databaseUrl) {
    return serverTarget(config.databaseUrl);
  }
  // Headroom over the one pooled connection: pglite-socket drops connections past its maximum.
  const embedded: EmbeddedDatabase = await startEmbedded(config.dataDir, EMBEDDED_POOL_MAX + 4);
  return {
    connection: { host: embedded.socketDir, port: embedded.port, database: 'postgres', user: 'postgres' },
    embedded: true,
    pooled: new EventEmitter(),
    listen: async (_deps, channel, _name, onPayload) => ({ close: await embedded.listen(channel, onPayload) }),
    close: () => embedded.close(),
  };
}

/** Any fixed key: replicas starting together on one PostgreSQL migrate one after the other. */
const MIGRATION_LOCK_KEY = 0x50_4b_21_01;

/** Holds a session advisory lock on a connection of its own while `fn` runs. */
async function withMigrationLock<T>(target: DatabaseTarget, fn: () => Promise<T>): Promise<T> {
  if (target.embedded) return fn();
  const client = new pg.Client({ ...target.connection, application_name: 'souk-migrate' });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await fn();
  } finally {
    // Ending the session releases the lock, also when `fn` failed.
    await client.end().catch(() => {});
  }
}

export async function initOrm(target: DatabaseTarget): Promise<MikroORM<PostgreSqlDriver>> {
  const orm = await MikroORM.init(ormOptions(target));
  try {
    await withMigrationLock(target, () => orm.getMigrator().up());
  } catch (err) {
    await orm.close(true).catch(() => {});
    throw err;
  }
  return orm;
}
