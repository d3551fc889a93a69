import type { Ctx, Deps } from '../../core/context.js';
import type { EarlyAnswerer, Module } from '../../core/module.js';
import { LIMIT_WINDOWS } from '../stores/store.storefront.js';
import { admit, admittedStore, SHOPPER_EXPOSED_HEADERS, storeCors, STOREFRONT_KEY_HEADER, type OpenStore } from './storefront.access.js';
import { takeReadSlotNow } from './storefront-limits.js';

/**
 * Revalidation without the read (CONTRACT-3 §17.2's 304s): every replica keeps a version per
 * store, bumped by the NOTIFY the catalogue's tables send at commit (products, pages, landing
 * pages, shipping, the store row and its templates), and remembers the ETag each catalogue URL
 * last answered under the version it was read at. A conditional request whose ETag is still the
 * remembered one, at the same version, gets its 304 from memory: the shopper is still admitted
 * (CORS, the read limit), but nothing is read or serialized.
 */
export const CATALOG_CHANNEL = 'souk_catalog';

const MAX_ENTRIES = 50_000;

interface Remembered {
  etag: string;
  storeId: string;
  version: number;
  /** The store as the read that answered admitted it (its settings decide CORS and limits). */
  store: OpenStore;
  /** The route's pattern (for the log line) and its Cache-Control, for a 304 answered before routing. */
  route: string;
  cacheControl?: string;
}

/** What a catalogue read answered, as `rememberAnswer` keeps it. */
export interface Answered {
  url: string;
  route: string;
  etag: string;
  cacheControl?: string;
}

/** What a read saw before it ran: a later `remember` stores its answer only if nothing moved since. */
export interface ReadMark {
  epoch: number;
  changes: number;
  storeId?: string;
  version?: number;
}

class CatalogVersions {
  /** Bumped when notifications may have been lost (a reconnect): every version then means nothing. */
  epoch = 0;
  /** Every notification (any store): a read that began before one may not know its store's version. */
  changes = 0;
  private versions = new Map<string, { version: number; at: number }>();
  private answers = new Map<string, Remembered>();
  /** Store ids by the id or slug URLs name them with (a slug moves: a stale one only costs a read). */
  private refs = new Map<string, string>();
  /** Changes before this process listened are covered by a replica's lag only after it passed. */
  private readonly startedAt = Date.now();
  /** False while the LISTEN connection is down: no 304 from memory, nothing remembered. */
  listening: () => boolean = () => true;

  version(storeId: string): number {
    return this.versions.get(storeId)?.version ?? 0;
  }

  changedAt(storeId: string): number {
    return this.versions.get(storeId)?.at ?? this.startedAt;
  }

  bump(storeId: string | null): void {
    this.changes++;
    if (storeId === null) {
      this.epoch++;
      this.versions.clear();
      this.answers.clear();
      return;
    }
    const v = this.versions.get(storeId);
    if (v) {
      v.version++;
      v.at = Date.now();
    } else this.versions.set(storeId, { version: 1, at: Date.now() });
  }

  lookup(url: string): Remembered | undefined {
    const r = this.answers.get(url);
    if (!r) return undefined;
    if (r.version !== this.version(r.storeId)) {
      this.answers.delete(url);
      return undefined;
    }
    return r;
  }

  keep(url: string, ref: string, r: Remembered): void {
    if (this.answers.size >= MAX_ENTRIES) this.answers.clear();
    if (this.refs.size >= MAX_ENTRIES) this.refs.clear();
    this.answers.set(url, r);
    this.refs.set(ref, r.storeId);
  }

  storeOf(ref: string): string | undefined {
    return this.refs.get(ref);
  }
}

const byDeps = new WeakMap<Deps, CatalogVersions>();
function versionsOf(deps: Deps): CatalogVersions {
  let v = byDeps.get(deps);
  if (!v) byDeps.set(deps, (v = new CatalogVersions()));
  return v;
}

/**
 * Taken before a read runs. `ref` is the store's id or slug as the URL gives it: once a read has
 * shown which store it names, a change elsewhere no longer keeps that store's answers from being
 * remembered.
 */
export function markRead(deps: Deps, ref: string): ReadMark {
  const v = versionsOf(deps);
  const storeId = v.storeOf(ref);
  return { epoch: v.epoch, changes: v.changes, ...(storeId ? { storeId, version: v.version(storeId) } : {}) };
}

const matches = (ifNoneMatch: string, etag: string) => ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`);

/**
 * A 304 from memory for `url` when `ifNoneMatch` names the ETag it last answered and its store has
 * not changed since; the shopper is admitted as a read would (which may refuse: 429). Returns
 * the ETag, or undefined when the read must run.
 */
export async function notModifiedFromMemory(ctx: Ctx, url: string, ifNoneMatch: string): Promise<string | undefined> {
  const v = versionsOf(ctx.deps);
  if (!v.listening()) return undefined;
  const r = v.lookup(url);
  if (!r || !matches(ifNoneMatch, r.etag)) return undefined;
  await admit(ctx, r.store, { countRead: true });
  return r.etag;
}

/**
 * After a catalogue read answered `etag`: remember it under its store's version, when that version
 * is known to cover what the read saw. Nothing may have changed anywhere since the read began (or
 * the change's store is known not to be this one), and with replicas, the store's last change
 * must be older than the lag a replica may have (SOUK_REPLICA_MAX_LAG_MS), or the read may have
 * come from a copy that did not have it yet.
 */
export function rememberAnswer(ctx: Ctx, ref: string, mark: ReadMark, answered: Answered): void {
  const store = admittedStore(ctx);
  const v = versionsOf(ctx.deps);
  if (!store || !v.listening() || mark.epoch !== v.epoch) return;
  const unmoved = mark.changes === v.changes || (mark.storeId === store.id && mark.version === v.version(store.id));
  if (!unmoved) return;
  if (ctx.deps.db.replicas.length && Date.now() - v.changedAt(store.id) <= 2 * ctx.deps.config.replicaMaxLagMs) return;
  const { url, ...answer } = answered;
  v.keep(url, ref, { ...answer, storeId: store.id, version: v.version(store.id), store });
}

/**
 * The same 304 before the router (`Module.early`): no context, no hooks, no statement. Only for
 * what needs nothing else: an anonymous conditional GET without a storefront key, whose
 * read this process can count alone and within the limit. Anything else declines, and the routed
 * path decides as it always does (a token's 401, a key's address, a slot the database must be
 * asked about, a 429 with its wait).
 */
export function earlyNotModified(deps: Deps): EarlyAnswerer {
  const v = versionsOf(deps);
  return (req, ip) => {
    const h = req.headers;
    const ifNoneMatch = h['if-none-match'];
    if (typeof ifNoneMatch !== 'string' || h.authorization !== undefined || h[STOREFRONT_KEY_HEADER] !== undefined) return null;
    if (!v.listening()) return null;
    const r = v.lookup(req.url ?? '');
    if (!r || !matches(ifNoneMatch, r.etag)) return null;
    const settings = r.store.settings;
    if (!takeReadSlotNow(deps, r.storeId, ip, { max: settings.limits.readsPerAddress, windowMs: LIMIT_WINDOWS.readsPerAddress })) return null;
    const headers: Record<string, string> = { ...storeCors(settings, typeof h.origin === 'string' ? h.origin : undefined), 'access-control-expose-headers': SHOPPER_EXPOSED_HEADERS };
    if (r.cacheControl) headers['cache-control'] = r.cacheControl;
    headers.etag = r.etag;
    return { status: 304, headers, route: r.route, storeId: r.storeId };
  };
}

/** Keeps every replica's versions honest: the catalogue's commits bump their store's, a lost connection all. */
export const catalogVersionsModule: Module = {
  name: 'storefront-catalog-versions',
  early: earlyNotModified,
  start: async (deps: Deps) => {
    const versions = versionsOf(deps);
    // The dedicated connection hears every replica's commits; the pooled ones hear this process's
    // own before its write answers (and are all the embedded database has).
    const listener = await deps.db.listen(deps, CATALOG_CHANNEL, 'storefront-catalog', (payload) => versions.bump(payload || null));
    if ('connected' in listener && typeof listener.connected === 'function') versions.listening = () => (listener as { connected(): boolean }).connected();
    const onPooled = (payload: string) => versions.bump(payload || null);
    deps.db.pooled.on(CATALOG_CHANNEL, onPooled);
    return async () => {
      deps.db.pooled.off(CATALOG_CHANNEL, onPooled);
      versions.listening = () => false;
      await listener.close();
    };
  },
};
