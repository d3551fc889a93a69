import { randomBytes } from 'node:crypto';
import { sha256, type Ctx, type Deps } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { Module } from '../../core/module.js';
import { keepStore, transaction } from '../../core/tx.js';
import { executePrepared } from '../../db/prepared.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { StorefrontKey } from './storefront-keys.entity.js';
import type { StorefrontKeyCreateInput, StorefrontKeyType, StorefrontKeyWithSecretType } from './storefront-keys.types.js';

export const STOREFRONT_KEY_PREFIX = 'sfk_';
const KEY_SHAPE = /^sfk_[A-Za-z0-9_-]{43}$/;

/** The trigger on storefront_keys NOTIFYs this channel with a deleted key's hash, at commit. */
export const STOREFRONT_KEYS_CHANNEL = 'souk_storefront_keys';

/**
 * How long an answer is used without a word from the database. Deletions reach every replica by
 * NOTIFY and a lost LISTEN connection clears everything, so this only bounds what a notification
 * lost without its connection could leave behind.
 */
export const KEY_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface StorefrontKeyHolder {
  storeId: string;
  keyId: string;
}

/**
 * Per-process memory of key hash → store (or "no such key", so a revoked key still deployed on a
 * shop server costs no query per request). A read that began before an invalidation is not kept.
 */
class KeyCache {
  private entries = new Map<string, { value: StorefrontKeyHolder | null; at: number }>();
  epoch = 0;

  get(hash: string, now: number): StorefrontKeyHolder | null | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (now - e.at > KEY_CACHE_TTL_MS) {
      this.entries.delete(hash);
      return undefined;
    }
    return e.value;
  }

  set(hash: string, value: StorefrontKeyHolder | null, readEpoch: number): void {
    if (readEpoch !== this.epoch) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { value, at: Date.now() });
  }

  /** A key was deleted; null: any may have been (a lost connection). */
  invalidate(hash: string | null): void {
    this.epoch++;
    if (hash === null) this.entries.clear();
    else this.entries.delete(hash);
  }
}

const caches = new WeakMap<Deps, KeyCache>();
function cacheOf(deps: Deps): KeyCache {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new KeyCache()));
  return cache;
}

/**
 * The store and key a presented `X-Souk-Storefront-Key` belongs to; null when it is malformed,
 * unknown or revoked. No SQL while the cache holds the answer; a deleted key is refused by this
 * process as soon as its DELETE answered, and by the others when the NOTIFY arrives.
 */
export async function storefrontKeyOf(deps: Deps, presented: string): Promise<StorefrontKeyHolder | null> {
  if (!KEY_SHAPE.test(presented)) return null;
  const hash = sha256(presented);
  const cache = cacheOf(deps);
  const known = cache.get(hash, Date.now());
  if (known !== undefined) return known;
  const epoch = cache.epoch;
  const [row] = await executePrepared<{ id: string; store_id: string }>(deps.orm.em, 'select id, store_id from storefront_keys where key_hash = ?', [hash]);
  const holder = row ? { storeId: row.store_id, keyId: row.id } : null;
  cache.set(hash, holder, epoch);
  return holder;
}

const view = (k: StorefrontKey): StorefrontKeyType => ({ id: k.id, name: k.name, createdAt: k.createdAt.toISOString() });

export async function createStorefrontKey(ctx: Ctx, storeId: string, input: StorefrontKeyCreateInput): Promise<StorefrontKeyWithSecretType> {
  const key = STOREFRONT_KEY_PREFIX + randomBytes(32).toString('base64url');
  return transaction(ctx, async (tx) => {
    await keepStore(tx, storeId);
    const row = tx.em.create(StorefrontKey, { storeId, name: input.name, keyHash: sha256(key) });
    await tx.em.flush();
    return { ...view(row), key };
  });
}

export async function listStorefrontKeys(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null }): Promise<{ data: StorefrontKeyType[]; nextCursor: string | null }> {
  const limit = pageLimit(args.limit);
  const rows = await ctx.em.find(StorefrontKey, { storeId, ...(args.cursor ? { id: { $lt: args.cursor } } : {}) }, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(view), nextCursor: p.nextCursor };
}

/** Deletes the key: it stops working at once (this process now, the others at their NOTIFY). */
export async function deleteStorefrontKey(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    const [row] = await tx.em.execute<Array<{ key_hash: string }>>('delete from storefront_keys where id = ? and store_id = ? returning key_hash', [id, storeId]);
    if (!row) throw notFound('storefront key');
    tx.afterCommit.push(() => cacheOf(ctx.deps).invalidate(row.key_hash));
  });
}

/** Keeps every replica's key cache honest: a deleted key (or a deleted store's keys) is forgotten at commit. */
export const storefrontKeysModule: Module = {
  name: 'storefront-keys',
  start: async (deps: Deps) => {
    const cache = cacheOf(deps);
    // The dedicated connection hears every replica's commits; the pooled ones hear this process's
    // own (the embedded database's notifications reach only those).
    const listener = await deps.db.listen(deps, STOREFRONT_KEYS_CHANNEL, 'storefront-keys', (payload) => cache.invalidate(payload || null));
    const onPooled = (payload: string) => cache.invalidate(payload || null);
    deps.db.pooled.on(STOREFRONT_KEYS_CHANNEL, onPooled);
    return async () => {
      deps.db.pooled.off(STOREFRONT_KEYS_CHANNEL, onPooled);
      await listener.close();
    };
  },
};
