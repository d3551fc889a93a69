import type { AuthCache, CachedToken, Deps } from '../../core/context.js';
import type { Module } from '../../core/module.js';

/**
 * Triggers on auth_tokens, users and store_members NOTIFY this channel with the user id whose
 * tokens or memberships changed (revocation, role change, member added or removed), at commit.
 */
export const AUTH_CHANNEL = 'souk_auth';

/** How long a cached answer may be used without a word from the database. */
export const AUTH_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

/**
 * Per-process memory of token → user and (store, user) → role, so an authenticated request
 * needs no SQL to know who calls. Every replica drops a user's entries when the database
 * says they changed; an entry read while such a change was on its way is not kept (epoch).
 */
export class ProcessAuthCache implements AuthCache {
  private tokens = new Map<string, { value: CachedToken; at: number }>();
  private members = new Map<string, { role: string | null; userId: string; at: number }>();
  /** Bumped by every invalidation: a read that began before one must not be stored. */
  epoch = 0;
  private watchers = new Set<(userId: string | null) => void>();

  getToken(hash: string, now = Date.now()): CachedToken | undefined {
    const e = this.tokens.get(hash);
    if (!e) return undefined;
    if (now - e.at > AUTH_CACHE_TTL_MS) {
      this.tokens.delete(hash);
      return undefined;
    }
    return e.value;
  }

  setToken(hash: string, value: CachedToken, readEpoch: number): void {
    if (readEpoch !== this.epoch) return;
    if (this.tokens.size >= MAX_ENTRIES) this.tokens.clear();
    this.tokens.set(hash, { value, at: Date.now() });
  }

  /** undefined: not known here; null: known not to be a member. */
  getRole(storeId: string, userId: string, now = Date.now()): string | null | undefined {
    const key = `${storeId}:${userId}`;
    const e = this.members.get(key);
    if (!e) return undefined;
    if (now - e.at > AUTH_CACHE_TTL_MS) {
      this.members.delete(key);
      return undefined;
    }
    return e.role;
  }

  setRole(storeId: string, userId: string, role: string | null, readEpoch: number): void {
    if (readEpoch !== this.epoch) return;
    if (this.members.size >= MAX_ENTRIES) this.members.clear();
    this.members.set(`${storeId}:${userId}`, { role, userId, at: Date.now() });
  }

  /** A user's tokens or memberships changed; null: anything may have (a lost connection). */
  invalidate(userId: string | null): void {
    this.epoch++;
    if (userId === null) {
      this.tokens.clear();
      this.members.clear();
    } else {
      for (const [k, e] of this.tokens) if (e.value.userId === userId) this.tokens.delete(k);
      for (const [k, e] of this.members) if (e.userId === userId) this.members.delete(k);
    }
    for (const fn of this.watchers) fn(userId);
  }

  watch(listener: (userId: string | null) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }
}

/** Keeps the cache honest: every replica's commits that change tokens or memberships clear what they touched. */
export const authCacheModule: Module = {
  name: 'auth-cache',
  start: async (deps: Deps) => {
    const cache = deps.authCache;
    // The dedicated connection hears every replica's commits even while the pool is empty; the
    // pooled connections make this process's own changes take effect before its write answers.
    const listener = await deps.db.listen(deps, AUTH_CHANNEL, 'auth-cache', (payload) => cache.invalidate(payload || null));
    const onPooled = (payload: string) => cache.invalidate(payload || null);
    deps.db.pooled.on(AUTH_CHANNEL, onPooled);
    return async () => {
      deps.db.pooled.off(AUTH_CHANNEL, onPooled);
      await listener.close();
    };
  },
};
