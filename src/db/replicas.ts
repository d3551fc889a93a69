import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Connection, MikroORM } from '@mikro-orm/core';
import type { EntityManager, PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { PgConnection } from '../config.js';
import { onPrimary, primaryEm, type Ctx } from '../core/context.js';
import type { Logger } from '../core/log.js';
import { inTransaction } from '../core/tx.js';

/**
 * Read-only GraphQL operations (every `query`, from /graphql, a REST row or the Feeef face) read
 * from PostgreSQL streaming replicas (SOUK_DATABASE_REPLICA_URLS, MikroORM's `replicas`): the
 * executor (edge/executor.ts) hands their resolvers a context from `ctx()`. Everything else stays
 * on the primary: mutations and subscriptions, transactions (core/tx.ts takes the primary's
 * EntityManager even inside a query), membership checks (core/policy.ts), the caller's token (read
 * before the operation), the few writes queries make (`primaryEm`), and a signed-in caller's reads
 * for a while after it wrote (read-your-writes). A replica further behind than
 * SOUK_REPLICA_MAX_LAG_MS, or unreachable, is skipped until a later check finds it well again.
 */
export interface ReadRoute {
  /** The EntityManager for a read that tolerates lag: a replica's, or `ctx.em` where the read must see the primary. */
  em(ctx: Ctx): EntityManager;
  /** `ctx` itself, or a copy of it whose `em` reads from a replica (as `em()` decides). */
  ctx(ctx: Ctx): Ctx;
  /** The request writes (a mutation): its later reads, and its caller's for a few seconds, stay on the primary. */
  wrote(ctx: Ctx): void;
  /** Each replica as last checked. */
  status(): ReplicaStatus[];
  /** Calls `listener` after each check that changed a replica's state; returns how to stop. */
  watch(listener: (status: ReplicaStatus[]) => void): () => void;
}

export type ReplicaState = 'unknown' | 'ok' | 'lagging' | 'down';

export interface ReplicaStatus {
  /** `host:port/database` (never the password). */
  name: string;
  state: ReplicaState;
  /** How far behind the primary it was at the last check (ms); null when it could not be told. */
  lagMs: number | null;
  /** Why it is skipped (down or not a standby), for the log. */
  reason: string | null;
}

/** No replicas: every read on the primary. */
export const PRIMARY_READS: ReadRoute = {
  em: (ctx) => ctx.em,
  ctx: (ctx) => ctx,
  wrote() {},
  status: () => [],
  watch: () => () => {},
};

/** How long opening a connection to a replica may take. */
export const REPLICA_CONNECT_TIMEOUT_MS = 2000;

/** Connections per replica pool (the catalog reads are one statement each). */
export const REPLICA_POOL_MAX = 10;

/** MikroORM `replicas` entries: each its own pool, without the primary's LISTEN (a standby refuses LISTEN). */
export function replicaOptions(replicas: PgConnection[]) {
  return replicas.map((c) => ({
    name: replicaName(c),
    host: c.host,
    port: c.port,
    dbName: c.database,
    user: c.user,
    ...(c.password === undefined ? {} : { password: c.password }),
    driverOptions: {
      compileSqlOnError: false,
      pool: { min: 0, max: REPLICA_POOL_MAX, afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => done(null, conn) },
      // A replica that stops answering costs a read this long at most before the primary answers it.
      connection: { connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS, ...(c.ssl === undefined ? {} : { ssl: c.ssl }) },
    },
  }));
}

const replicaName = (c: PgConnection) => `${c.host}:${c.port}/${c.database}`;

/** `X/Y` (two hex halves) as one number. */
function lsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/** How often replicas are checked: twice per allowed lag, between 100 ms and 1 s. */
export const checkIntervalMs = (maxLagMs: number) => Math.min(1000, Math.max(100, Math.floor(maxLagMs / 2)));

/**
 * How long a caller's reads stay on the primary after it wrote: a replica in use was at most the
 * allowed lag behind at its last check, and may have fallen one interval further since.
 */
export const readYourWritesMs = (maxLagMs: number) => 2 * (maxLagMs + checkIntervalMs(maxLagMs));

/** Replica EntityManagers → the request's own (the primary's), for a read whose replica went away under it. */
const fallbacks = new WeakMap<object, EntityManager>();

/** The primary's EntityManager of the request a replica EntityManager reads for; undefined for any other. */
export const primaryFallback = (em: object): EntityManager | undefined => fallbacks.get(em);

/** Errors that say the server is gone, not that the statement failed: connection exceptions, shutdowns, sockets closed. */
export function connectionLost(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('ECONN') || code === 'EPIPE')) return true;
  return /Connection terminated|connection to server .* failed/i.test(err.message);
}

/** Whose writes a request's reads must see: a signed-in user, or an order's payment token. */
const writerOf = (ctx: Ctx): string | undefined => ctx.actor?.userId ?? (ctx.paymentGrant ? `order:${ctx.paymentGrant.orderId}` : undefined);

class Replica {
  state: ReplicaState = 'unknown';
  lagMs: number | null = null;
  reason: string | null = null;
  /** Primary WAL positions not yet replayed here, with when they were seen (oldest first). */
  private pending: Array<{ lsn: bigint; at: number }> = [];
  private client: pg.Client | null = null;
  /** A driver that answers every connection request with this replica's pool. */
  private readonly driver: PostgreSqlDriver;

  constructor(
    readonly name: string,
    private readonly target: PgConnection,
    orm: MikroORM<PostgreSqlDriver>,
    connection: Connection,
    onLost: (replica: Replica) => void,
  ) {
    // The ORM's driver with its connection swapped: queries, query builders and the raw pool of
    // an EntityManager built on it all reach the replica. Writes there fail (a standby is read-only).
    // A read that finds the replica gone takes it out at once, not at the next check.
    const base = orm.em.getDriver();
    // The ORM's reads (find, findOne, count, raw statements) that find the replica gone run again on the primary.
    const orPrimary = (method: 'find' | 'findOne' | 'count' | 'execute') => ({
      value: async (...args: unknown[]) => {
        try {
          return await (base[method] as (...a: unknown[]) => Promise<unknown>).apply(this.driver, args);
        } catch (err) {
          if (!connectionLost(err as Error)) throw err;
          return (base[method] as (...a: unknown[]) => Promise<unknown>).apply(base, args);
        }
      },
    });
    this.driver = Object.create(base, {
      connection: { value: connection },
      replicas: { value: [] },
      find: orPrimary('find'),
      findOne: orPrimary('findOne'),
      count: orPrimary('count'),
      execute: orPrimary('execute'),
      convertException: {
        value: (err: Error) => {
          if (this.state === 'ok' && connectionLost(err)) {
            this.set('down', null, `lost during a read (${(err as { code?: string }).code ?? 'connection'})`);
            onLost(this);
          }
          return base.convertException(err);
        },
      },
    }) as PostgreSqlDriver;
    this.make = () => {
      const Em = orm.em.constructor as new (config: unknown, driver: PostgreSqlDriver, metadata: unknown, useContext: boolean) => EntityManager;
      return new Em(orm.config, this.driver, orm.getMetadata(), false);
    };
  }

  /** A fresh EntityManager (an identity map of its own) reading from this replica. */
  readonly make: () => EntityManager;

  /** Records that the primary's WAL reached `position` by `at`. */
  saw(position: bigint, at: number): void {
    const last = this.pending[this.pending.length - 1];
    if (last && position <= last.lsn) return;
    // Bounded while replay is stopped: the oldest entry (which gives the lag) is kept, the newest moves.
    if (this.pending.length >= 1000) this.pending[this.pending.length - 1] = { lsn: position, at };
    else this.pending.push({ lsn: position, at });
  }

  async check(maxLagMs: number, timeoutMs: number): Promise<void> {
    try {
      const client = await this.connect(timeoutMs);
      const { rows } = await client.query({ text: 'select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as replay', query_timeout: timeoutMs } as pg.QueryConfig);
      const row = rows[0] as { recovery: boolean; replay: string | null };
      if (!row.recovery || row.replay === null) {
        this.set('down', null, 'not a standby following the primary (pg_is_in_recovery() is false)');
        return;
      }
      const replayed = lsn(row.replay);
      while (this.pending.length && this.pending[0].lsn <= replayed) this.pending.shift();
      const lag = this.pending.length ? Date.now() - this.pending[0].at : 0;
      this.set(lag > maxLagMs ? 'lagging' : 'ok', lag, null);
    } catch (err) {
      this.drop();
      const code = (err as { code?: unknown }).code;
      this.set('down', null, typeof code === 'string' ? `unreachable (${code})` : 'unreachable');
    }
  }

  set(state: ReplicaState, lagMs: number | null, reason: string | null): void {
    this.state = state;
    this.lagMs = lagMs;
    this.reason = reason;
  }

  private async connect(timeoutMs: number): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ ...this.target, application_name: 'souk-replica-check', connectionTimeoutMillis: timeoutMs });
    // A broken session is replaced at the next check.
    client.on('error', () => this.drop());
    this.client = client;
    try {
      await client.connect();
    } catch (err) {
      this.drop();
      throw err;
    }
    return client;
  }

  drop(): void {
    const c = this.client;
    this.client = null;
    c?.end().catch(() => {});
  }

  status(): ReplicaStatus {
    return { name: this.name, state: this.state, lagMs: this.lagMs, reason: this.reason };
  }
}

/**
 * Routes the reads of `orm` that tolerate lag over its replicas (MikroORM's `replicas`, in the
 * order of `targets`), checked on a timer; returns the route and how to stop the checks.
 */
export function startReadReplicas(
  orm: MikroORM<PostgreSqlDriver>,
  targets: PgConnection[],
  opts: { maxLagMs: number; log?: Logger },
): { route: ReadRoute; close(): Promise<void> } {
  // MikroORM keeps its read connections on the driver and picks among them at random; the route
  // picks among the healthy ones itself.
  const connections = (orm.em.getDriver() as unknown as { replicas: Connection[] }).replicas;
  if (!targets.length || connections.length !== targets.length) return { route: PRIMARY_READS, async close() {} };
  const lost = (r: Replica) => {
    opts.log?.warn({ replica: r.name, state: r.state, reason: r.reason }, 'read replica skipped: reads go to the primary');
    changes.emit('change', route.status());
  };
  const replicas = targets.map((t, i) => new Replica(replicaName(t), t, orm, connections[i], lost));
  const interval = checkIntervalMs(opts.maxLagMs);
  const window = readYourWritesMs(opts.maxLagMs);
  const changes = new EventEmitter();
  /** Callers that wrote (users, order payment tokens), and until when their reads stay on the primary. */
  const writers = new Map<string, number>();
  /** EntityManagers of requests that wrote. */
  const wroteEms = new WeakSet<object>();
  /** The replica EntityManager a request reads through (one per request: its identity map). */
  const readEms = new WeakMap<object, { em: EntityManager; replica: Replica }>();
  const readCtxs = new WeakMap<Ctx, Ctx>();
  let next = 0;

  const pick = (): Replica | null => {
    for (let i = 0; i < replicas.length; i++) {
      const r = replicas[(next + i) % replicas.length];
      if (r.state === 'ok') {
        next = (next + i + 1) % replicas.length;
        return r;
      }
    }
    return null;
  };

  const route: ReadRoute = {
    em(ctx) {
      // Keyed by the request's primary EntityManager: `ctx` may already be a replica's copy.
      const primary = primaryEm(ctx);
      if (inTransaction(ctx) || wroteEms.has(primary)) return primary;
      const user = writerOf(ctx);
      if (user !== undefined) {
        const until = writers.get(user);
        if (until !== undefined && until > Date.now()) return primary;
      }
      const known = readEms.get(primary);
      // A replica that fell behind since the request's first read is left for the primary.
      if (known?.replica.state === 'ok') return known.em;
      const replica = pick();
      if (!replica) return primary;
      const em = replica.make();
      readEms.set(primary, { em, replica });
      fallbacks.set(em, primary);
      return em;
    },
    ctx(ctx) {
      const em = route.em(ctx);
      if (em === ctx.em) return ctx;
      if (em === primaryEm(ctx)) return onPrimary(ctx);
      const known = readCtxs.get(ctx);
      if (known?.em === em) return known;
      const copy = { ...ctx, em, primary: primaryEm(ctx) };
      readCtxs.set(ctx, copy);
      return copy;
    },
    wrote(ctx) {
      wroteEms.add(primaryEm(ctx));
      const user = writerOf(ctx);
      if (user !== undefined) writers.set(user, Date.now() + window);
    },
    status: () => replicas.map((r) => r.status()),
    watch(listener) {
      changes.on('change', listener);
      return () => changes.off('change', listener);
    },
  };

  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const tick = async () => {
    const before = replicas.map((r) => r.state);
    const at = Date.now();
    try {
      const [row] = await orm.em.getConnection().execute<Array<{ lsn: string }>>('select pg_current_wal_lsn()::text as lsn');
      for (const r of replicas) r.saw(lsn(row.lsn), at);
    } catch {
      // The primary did not answer: its position is unknown this time; the replicas are still checked.
    }
    await Promise.all(replicas.map((r) => r.check(opts.maxLagMs, Math.max(1000, 2 * interval))));
    const now = Date.now();
    for (const [user, until] of writers) if (until <= now) writers.delete(user);
    const changed = replicas.filter((r, i) => r.state !== before[i]);
    for (const r of changed) {
      if (r.state === 'ok') opts.log?.info({ replica: r.name, lagMs: r.lagMs }, 'read replica in use');
      else opts.log?.warn({ replica: r.name, state: r.state, lagMs: r.lagMs, reason: r.reason }, 'read replica skipped: reads go to the primary');
    }
    if (changed.length) changes.emit('change', route.status());
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = null;
        schedule();
      });
    }, interval);
    timer.unref();
  };
  running = tick().finally(() => {
    running = null;
    schedule();
  });

  return {
    route,
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => {});
      for (const r of replicas) r.drop();
    },
  };
}
