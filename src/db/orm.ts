import pg from 'pg';
import { MikroORM, ReflectMetadataProvider, type Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { startEmbedded, type EmbeddedDatabase } from './embedded.js';

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
  close(): Promise<void>;
}

export function ormOptions(target: DatabaseTarget): Options<PostgreSqlDriver> {
  const c = target.connection;
  return {
    driver: PostgreSqlDriver,
    entities: ENTITIES,
    metadataProvider: ReflectMetadataProvider,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    ...(c.connectionString ? { clientUrl: c.connectionString } : { host: c.host, port: c.port, dbName: c.database, user: c.user }),
    pool: { min: 0, max: target.embedded ? EMBEDDED_POOL_MAX : ORM_POOL_MAX },
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

export async function openDatabase(config: Config): Promise<DatabaseTarget> {
  if (config.databaseUrl) {
    return { connection: { connectionString: config.databaseUrl }, embedded: false, async close() {} };
  }
  // Headroom over the one pooled connection: pglite-socket drops connections past its maximum.
  const embedded: EmbeddedDatabase = await startEmbedded(config.dataDir, EMBEDDED_POOL_MAX + 4);
  return {
    connection: { host: embedded.socketDir, port: embedded.port, database: 'postgres', user: 'postgres' },
    embedded: true,
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
