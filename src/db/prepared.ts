import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { connectionLost, primaryFallback } from './replicas.js';

/** Statement text (with `?` bindings) → its `$n` text and name; bounded, as texts are few. */
const prepared = new Map<string, { text: string; name: string }>();
const PREPARED_MAX = 1000;
const connectionIds = new WeakMap<pg.Client, number>();
let nextConnectionId = 0;

function prepare(sql: string): { text: string; name: string } {
  let p = prepared.get(sql);
  if (!p) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    p = { text, name: `souk_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` };
    if (prepared.size < PREPARED_MAX) prepared.set(sql, p);
  }
  return p;
}

/**
 * `executePrepared` on a connection of the caller's own (a LISTEN connection that also answers
 * queries), outside the ORM's pool; errors are the driver's.
 */
export async function queryPrepared<T>(conn: { query(q: pg.QueryConfig): Promise<pg.QueryResult> }, sql: string, params: unknown[]): Promise<T[]> {
  const { text, name } = prepare(sql);
  return (await conn.query({ name, text, values: params })).rows as T[];
}

/**
 * A statement PostgreSQL parses and plans once per connection (a named prepared statement), for
 * hot paths whose SQL text is fixed and whose values change: `em.execute` inlines the values, so
 * each call is parsed and planned anew (about a third of the database's CPU for an order create).
 * `?` bindings as in `em.execute`; errors are the ORM's exceptions, as `em.execute` throws them.
 * Outside transactions only: it takes a connection of its own from the pool.
 * Names carry the connection's number: the embedded PGlite is one session that outlives its socket
 * connections, so a name a gone connection prepared still exists there, unknown to the next one.
 */
export async function executePrepared<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const primary = primaryFallback(em);
  if (!primary) return runPrepared<T>(em, sql, params);
  // On a read replica: one that went away under the read (it is taken out at once) leaves the read to the primary.
  try {
    return await runPrepared<T>(em, sql, params);
  } catch (err) {
    if (!connectionLost(err as Error)) throw err;
    em.getDriver().convertException(err as Error);
    return runPrepared<T>(primary, sql, params);
  }
}

async function runPrepared<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const { text, name } = prepare(sql);
  const client = em.getConnection().getKnex().client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    let id = connectionIds.get(conn);
    if (id === undefined) connectionIds.set(conn, (id = nextConnectionId++));
    return (await conn.query({ name: `${name}_${id}`, text, values: params })).rows as T[];
  } catch (err) {
    throw em.getDriver().convertException(err as Error);
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * `executePrepared` on the connection of the caller's transaction (its knex client hands out that
 * one connection): a hot statement inside a transaction, parsed and planned once per connection.
 */
export async function executePreparedIn<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const trx = em.getTransactionContext() as { client: { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> } } | undefined;
  if (!trx) throw new Error('executePreparedIn needs a transaction');
  const { text, name } = prepare(sql);
  const conn = await trx.client.acquireConnection();
  try {
    let id = connectionIds.get(conn);
    if (id === undefined) connectionIds.set(conn, (id = nextConnectionId++));
    return (await conn.query({ name: `${name}_${id}`, text, values: params })).rows as T[];
  } catch (err) {
    throw em.getDriver().convertException(err as Error);
  } finally {
    await trx.client.releaseConnection(conn);
  }
}

/** A prepared statement where `em` is: on its transaction's connection when it is in one, from the pool otherwise. */
export function executePreparedWhere<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return em.getTransactionContext() ? executePreparedIn<T>(em, sql, params) : executePrepared<T>(em, sql, params);
}
