import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { MikroORM, ReflectMetadataProvider, type Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { pgConnection, type Config, type PgConnection } from '../config.js';
import { MIGRATIONS } from './migrations/index.js';
import { startEmbedded, type EmbeddedDatabase } from './embedded.js';
import { listenChannel, type Listener } from './listen.js';
import { PRIMARY_READS, replicaOptions, type ReadRoute } from './replicas.js';
import type { Deps } from '../core/context.js';
import type { Logger } from '../core/log.js';
import { PROJECT_ROOT } from '../lib/paths.js';

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
  connection: PgConnection;
  embedded: boolean;
  /** Streaming replicas of the server (SOUK_DATABASE_REPLICA_URLS), MikroORM's `replicas`. */
  replicas: PgConnection[];
  /**
   * Where reads that tolerate lag go (`reads.em(ctx)`): a healthy replica or the primary. The
   * primary only until `startReadReplicas` runs (service.ts, once the ORM is up).
   */
  reads: ReadRoute;
  /**
   * Calls `onPayload` for each NOTIFY on `channel` (committed transactions only); null after a
   * reconnect, when notifications may have been missed. Returns how to stop listening.
   */
  listen(deps: Pick<Deps, 'db' | 'log'>, channel: string, name: string, onPayload: (payload: string | null) => void): Promise<Listener>;
  /**
   * NOTIFYs on POOLED_CHANNELS as the ORM's own connections receive them. A session gets the
   * notifications of its own transaction before its COMMIT answers, so a cache invalidated from
   * here is already clean when the write that changed it returns.
   */
  pooled: EventEmitter;
  close(): Promise<void>;
}

/** Channels every ORM connection listens on (see DatabaseTarget.pooled). */
export const POOLED_CHANNELS = ['souk_auth', 'souk_storefront_keys', 'souk_catalog'];

/** The entity classes the ORM maps; the list is composed above the domains (`src/domains/entities.ts`). */
export type EntityList = NonNullable<Options<PostgreSqlDriver>['entities']>;

export function ormOptions(target: DatabaseTarget, entities: EntityList): Options<PostgreSqlDriver> {
  const c = target.connection;
  return {
    driver: PostgreSqlDriver,
    entities,
    metadataProvider: ReflectMetadataProvider,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    host: c.host,
    port: c.port,
    dbName: c.database,
    user: c.user,
    password: c.password,
    pool: {
      min: 0,
      max: target.embedded ? EMBEDDED_POOL_MAX : ORM_POOL_MAX,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.on('notification', (msg) => target.pooled.emit(msg.channel, msg.payload ?? ''));
        conn.query(POOLED_CHANNELS.map((c) => `listen ${c}`).join('; '), (err: Error | null) => done(err, conn));
      },
    },
    // Nothing reaches a replica unless routed there (db/replicas.ts): MikroORM would otherwise send
    // every read outside a transaction to one, read-your-writes or not.
    ...(target.replicas.length ? { replicas: replicaOptions(target.replicas), preferReadReplicas: false } : {}),
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    forceUtcTimezone: true,
    // Migration progress goes through our own start line, not the ORM's console logger.
    logger: () => {},
    // knex must not format bound values into the messages of failed queries (the queue's job data).
    driverOptions: { compileSqlOnError: false, ...(c.ssl === undefined ? {} : { connection: { ssl: c.ssl } }) },
    allowGlobalContext: false,
    debug: false,
  };
}

/** A PostgreSQL server: nothing to start or stop here. */
export function serverTarget(connection: string | PgConnection, replicas: PgConnection[] = []): DatabaseTarget {
  return {
    connection: typeof connection === 'string' ? pgConnection(connection) : connection,
    embedded: false,
    replicas,
    reads: PRIMARY_READS,
    listen: listenChannel,
    pooled: new EventEmitter(),
    async close() {},
  };
}

/**
 * Where the template of a fresh embedded database lives: initdb's output with every migration
 * applied, made once at install (`npm ci` runs scripts/prepare.mjs). Named after the PGlite
 * version and the migrations (names and sources), so a template that no longer matches is never
 * used.
 */
export function embeddedTemplateDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  const hash = createHash('sha256').update(version);
  // The migrations' sources, not only their names: an edited migration needs a new template.
  const dir = join(PROJECT_ROOT, 'src', 'db', 'migrations');
  for (const m of MIGRATIONS) {
    hash.update(`\n${m.name}\n`);
    const file = join(dir, `${m.name}.ts`);
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  const key = hash.digest('hex').slice(0, 16);
  return join(PROJECT_ROOT, 'node_modules', '.cache', 'souk', `pgdata-${key}`);
}

/** Makes the embedded template unless it exists, removing those of earlier versions; returns its directory. */
export async function makeEmbeddedTemplate(entities: EntityList): Promise<string> {
  const dir = embeddedTemplateDir();
  const parent = dirname(dir);
  for (const old of existsSync(parent) ? readdirSync(parent) : []) {
    if (/^pgdata-[0-9a-f]{16}$/.test(old) && join(parent, old) !== dir) rmSync(join(parent, old), { recursive: true, force: true });
  }
  if (existsSync(dir)) return dir;
  const work = `${dir}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  try {
    const target = embeddedTarget(await startEmbedded(work, EMBEDDED_POOL_MAX + 4));
    try {
      const orm = await initOrm(target, entities);
      await orm.close(true);
    } finally {
      await target.close();
    }
    try {
      renameSync(join(work, 'pgdata'), dir);
    } catch (err) {
      // Another install made it first.
      if (!existsSync(dir)) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

export async function openDatabase(config: Config, log?: Logger): Promise<DatabaseTarget> {
  if (config.databaseConnection) {
    return serverTarget(config.databaseConnection, config.databaseReplicaConnections);
  }
  const template = embeddedTemplateDir();
  if (!existsSync(join(config.dataDir, 'pgdata')) && !existsSync(template)) {
    log?.info(`creating the embedded database in ${config.dataDir} (no install-time template: this first start takes several seconds; \`npm ci\` makes one)`);
  }
  return embeddedTarget(await startEmbedded(config.dataDir, EMBEDDED_POOL_MAX + 4, template));
}

function embeddedTarget(embedded: EmbeddedDatabase): DatabaseTarget {
  // The pool's one connection, plus headroom: pglite-socket drops connections past its maximum.
  return {
    connection: { host: embedded.socketDir, port: embedded.port, database: 'postgres', user: 'postgres' },
    embedded: true,
    replicas: [],
    reads: PRIMARY_READS,
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

/**
 * True when every committed migration is recorded, as on every start but the first: the migrator's
 * own checks (schema introspection, its lock table) are a third of a second on the embedded
 * database, one select is not.
 */
async function upToDate(orm: MikroORM<PostgreSqlDriver>): Promise<boolean> {
  try {
    const rows = await orm.em.getConnection().execute<Array<{ name: string }>>('select name from mikro_orm_migrations');
    const done = new Set(rows.map((r) => r.name));
    return MIGRATIONS.every((m) => done.has(m.name));
  } catch {
    // No migration table yet: a new database.
    return false;
  }
}

export async function initOrm(target: DatabaseTarget, entities: EntityList): Promise<MikroORM<PostgreSqlDriver>> {
  const orm = await MikroORM.init(ormOptions(target, entities));
  try {
    if (!(await upToDate(orm))) await withMigrationLock(target, () => orm.getMigrator().up());
  } catch (err) {
    await orm.close(true).catch(() => {});
    throw err;
  }
  return orm;
}
