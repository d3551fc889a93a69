import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, invalid } from './errors.js';
import { decryptSecret, encryptSecret } from './secrets.js';

/**
 * `Idempotency-Key`: the same key and request within 24 h get the first answer again, marked
 * `Idempotent-Replayed: true`; the key with another request → 409; two requests with one key at
 * once → one runs, the other gets 409 until the first has answered. Only successful answers are
 * kept, so a failed request may be retried under its key. Payments keep theirs with the order
 * (domains/payments/idempotency.ts); every other create or trigger keeps them here, per scope:
 * the caller within the store the request names (the `caller` column holds the scope).
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A reservation without an answer this old belongs to a process that died mid-request. */
export const ABANDONED_RESERVATION_MS = 5 * 60 * 1000;

export function checkIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalid('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  }
}

/** A stable digest of a request: key order does not matter, absent and undefined are alike. */
export function requestHash(input: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canonical(input) ?? null)).digest('hex');
}

/** An answer as kept: bodies are encrypted at rest, since creates may answer secrets (tokens, webhook secrets). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Reserves the scope's key for this request, or returns the answer an earlier request with the
 * same key and hash got. Runs outside any transaction: the reservation is visible to a parallel
 * request at once, and the insert's unique key lets only one of them take it.
 */
export async function reserveIdempotencyKey(em: EntityManager, secretKey: Buffer, scope: string, key: string, hash: string): Promise<StoredAnswer | null> {
  const now = Date.now();
  const taken = await em.execute<Array<{ key: string }>>(
    `insert into idempotency_keys (caller, key, request_hash, answer, created_at) values (?, ?, ?, null, ?)
     on conflict (caller, key) do update set request_hash = excluded.request_hash, answer = null, created_at = excluded.created_at
       where idempotency_keys.created_at < ? or (idempotency_keys.answer is null and idempotency_keys.created_at < ?)
     returning key`,
    [scope, key, hash, new Date(now), new Date(now - IDEMPOTENCY_TTL_MS), new Date(now - ABANDONED_RESERVATION_MS)],
  );
  if (taken.length) return null;
  const [row] = await em.execute<Array<{ request_hash: string; answer: string | null }>>(
    'select request_hash, answer from idempotency_keys where caller = ? and key = ?',
    [scope, key],
  );
  // Released between the two statements: the caller may retry at once.
  if (!row) throw conflict('A request with this Idempotency-Key has just finished; retry');
  if (row.request_hash !== hash) throw conflict('This Idempotency-Key was already used with another request');
  if (row.answer === null) throw conflict('A request with this Idempotency-Key is still in progress; retry shortly');
  return JSON.parse(decryptSecret(secretKey, row.answer)) as StoredAnswer;
}

export async function keepIdempotentAnswer(em: EntityManager, secretKey: Buffer, scope: string, key: string, answer: StoredAnswer): Promise<void> {
  await em.execute('update idempotency_keys set answer = ? where caller = ? and key = ?', [encryptSecret(secretKey, JSON.stringify(answer)), scope, key]);
}

/** The request failed: its key is free again. */
export async function releaseIdempotencyKey(em: EntityManager, scope: string, key: string): Promise<void> {
  await em.execute('delete from idempotency_keys where caller = ? and key = ? and answer is null', [scope, key]);
}

export async function pruneIdempotencyKeys(em: EntityManager, now = Date.now()): Promise<number> {
  const rows = await em.execute<Array<{ n: number }>>(
    'with d as (delete from idempotency_keys where created_at < ? returning 1) select count(*)::int as n from d',
    [new Date(now - IDEMPOTENCY_TTL_MS)],
  );
  return rows[0]?.n ?? 0;
}
