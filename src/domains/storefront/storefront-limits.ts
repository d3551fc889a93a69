import type { EntityManager } from '@mikro-orm/postgresql';
import ipaddr from 'ipaddr.js';
import type { Deps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { runsWork, type Module } from '../../core/module.js';
import { executePrepared, executePreparedIn } from '../../db/prepared.js';

/**
 * The storefront's limits (CONTRACT-3 §17.7), kept in PostgreSQL so every replica counts against
 * one budget. Checkouts: an exact sliding window (a log of checkout times per subject, taken in
 * the order's own transaction). Reads and cart pricing: a sliding window estimated from two fixed
 * windows (the previous window's count weighted by how much of it still overlaps), counted per
 * process and shared in one statement every FLUSH_MS. docs/storefront-defences.md has the numbers.
 */
export interface LimitRule {
  max: number;
  windowMs: number;
}

function refusal(waitMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError('RATE_LIMITED', `Too many requests from this shopper; retry in ${seconds} s`, undefined, { 'Retry-After': String(seconds) });
}

/**
 * The subject an address is counted under: IPv4 as is (an IPv4-mapped IPv6 address as IPv4),
 * IPv6 by its /64, the block one subscriber is usually given, so rotating through it dodges nothing.
 */
export function addressSubject(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const addr = ipaddr.process(address);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/64`).toString()}/64`;
}

const DB_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * Counts one checkout of `subject` (a buyer address, or a phone in E.164) in the store, as the
 * first statement of the order's transaction, and throws 429 RATE_LIMITED with Retry-After (the
 * wait until the oldest checkouts in the window leave it) when `rule.max` were already taken in
 * the last `rule.windowMs`. The subject's row stays locked until the transaction ends, so
 * concurrent checkouts of one subject are counted one after the other (exact: of 1,000 at once,
 * `max` pass), and a refused or failed checkout costs nothing: its count rolls back with it.
 * Call it for the address before the phone, so two transactions never wait on each other in a circle.
 */
export async function takeCheckoutSlot(tx: EntityManager, storeId: string, kind: 'address' | 'phone', subject: string, rule: LimitRule): Promise<void> {
  const key = kind === 'address' ? addressSubject(subject) : subject;
  const [row] = await tx.execute<Array<{ slot: Slot }>>(
    `with c as (select ${DB_NOW} as now),
          t as (insert into storefront_checkout_hits as h (store_id, kind, subject, hits, expires_at)
                select ?, ?, ?, array[c.now], to_timestamp((c.now + ?) / 1000.0) from c
                on conflict (store_id, kind, subject) do update
                  set hits = array(select t from unnest(h.hits) as t where t > excluded.hits[1] - ? order by t) || excluded.hits[1],
                      expires_at = excluded.expires_at
                returning hits)
     select ${SLOT.replace(/\$max/g, '?::int')} as slot from t`,
    [storeId, kind, key, rule.windowMs, rule.windowMs, rule.max, rule.max],
  );
  judge(row.slot, rule);
}

/**
 * What a checkout's slot needs of its subject's log, computed where the log is: a store's log holds
 * up to its limit (thousands, for a limit set that high), and shipping it to be judged here cost
 * every checkout time in proportion. `$max` stands for the rule's limit.
 */
const SLOT = `jsonb_build_object('before', cardinality(hits) - 1, 'now', (select max(x) from unnest(hits) as x),
                     'oldest', case when cardinality(hits) - 1 >= $max then hits[cardinality(hits) - $max] end)`;

/** The text of `checkoutSlotsCtes` (one string, so the statements built on it are found by it). */
const CHECKOUT_SLOTS_CTES = `c as (select ${DB_NOW} as now),
          t as (insert into storefront_checkout_hits as h (store_id, kind, subject, hits, expires_at)
                select ?, v.kind, v.subject, array[c.now], to_timestamp((c.now + v.window_ms) / 1000.0)
                  from c, (values (1, 'address', ?, ?::bigint), (2, 'phone', ?, ?::bigint)) as v(ord, kind, subject, window_ms)
                 order by v.ord
                on conflict (store_id, kind, subject) do update
                  -- Each row's window is what its expiry says: expires_at - now.
                  set hits = array(select t from unnest(h.hits) as t
                                    where t > excluded.hits[1] - (round(extract(epoch from excluded.expires_at) * 1000)::bigint - excluded.hits[1]) order by t) || excluded.hits[1],
                      expires_at = excluded.expires_at
                returning kind, hits),
          m as (select kind, hits, case kind when 'address' then ?::int else ?::int end as max from t),
          g as materialized (select jsonb_object_agg(kind, ${SLOT.replace(/\$max/g, 'max')}) as slots, bool_and(cardinality(hits) - 1 < max) as granted from m)`;

/** A subject's log as judged: the checkouts before this one in the window, the latest hit, and the one whose leaving frees a slot. */
export interface Slot {
  before: number;
  now: string | number;
  oldest: string | number | null;
}

/** The refusal a subject's slot calls for under its rule, if any. */
function judge(slot: Slot, rule: LimitRule): void {
  if (slot.before < rule.max) return;
  // The clock is read before the row's lock is waited for: a checkout that committed meanwhile
  // may hold a later hit than this one's, and the wait counts from the latest. The window admits
  // one more once the oldest `before - max + 1` checkouts have left it.
  throw refusal(Number(slot.oldest) + rule.windowMs - Number(slot.now));
}

/**
 * The CTEs that take a checkout's address and phone slots, as `takeCheckoutSlot` takes each, with
 * their bindings: the rows are written address first (the lock order every checkout keeps) and stay
 * locked to the end of the transaction. `g` (materialized, so both rows are written before anything
 * reads it) holds `slots` (for `judgeSlots`) and whether both are `granted`.
 */
export function checkoutSlotsCtes(storeId: string, address: string, phone: string, rules: CheckoutRules): { ctes: string; params: unknown[] } {
  return {
    ctes: CHECKOUT_SLOTS_CTES,
    params: [storeId, addressSubject(address), rules.address.windowMs, phone, rules.phone.windowMs, rules.address.max, rules.phone.max],
  };
}

export interface CheckoutRules {
  address: LimitRule;
  phone: LimitRule;
}

/** The slots `checkoutSlotsCtes` took, as judged: 429 RATE_LIMITED with its wait, the address first, when either is over. */
export function judgeSlots(slots: Record<'address' | 'phone', Slot>, rules: CheckoutRules): void {
  for (const kind of ['address', 'phone'] as const) judge(slots[kind], rules[kind]);
}

/**
 * A checkout's two slots in one statement (`checkoutSlotsCtes`), judged. `then` (a select-list
 * expression and its bindings, as a lock the checkout takes next) is evaluated by the same
 * statement once both rows are written, and only when both slots are granted: what a second
 * statement would do, without its round trip.
 */
export async function takeCheckoutSlots(tx: EntityManager, storeId: string, address: string, phone: string, rules: CheckoutRules, then?: { sql: string; params: unknown[] }): Promise<void> {
  const slots = checkoutSlotsCtes(storeId, address, phone, rules);
  const [row] = await executePreparedIn<{ slots: Record<'address' | 'phone', Slot> }>(
    tx,
    `with ${slots.ctes}
     select g.slots${then ? `, case when g.granted then ${then.sql} end as then` : ''} from g`,
    [...slots.params, ...(then?.params ?? [])],
  );
  judgeSlots(row.slots, rules);
}

/** How often a process shares its read counts (one statement for every subject it counted). */
export const FLUSH_MS = 250;
/** A subject this process has not heard about for this long is read back before it decides. */
export const STALE_MS = 5_000;
const MAX_COUNTERS = 100_000;

interface Counter {
  storeId: string;
  subject: string;
  windowMs: number;
  /** The budget of the last call (a store may change it). */
  max: number;
  /** The fixed window the global counts below are of (database clock, ms). */
  windowStart: number;
  /** The count of every replica in `windowStart`, as of the last exchange with the database. */
  count: number;
  /** The same for the window before it. */
  prev: number;
  /** This process's reads not yet sent. */
  pending: number;
  /** Local time of the last exchange; 0: never. */
  syncedAt: number;
  /** What was left of the budget at the last exchange: local reads may use half of it before asking again. */
  syncedRemaining: number;
}

interface Row {
  store_id: string;
  subject: string;
  window_start: string | number;
  count: number;
  prev_count: number;
  now: string | number;
}

/** Adds each subject's unsent reads to its window and answers every replica's counts. */
const FLUSH_SQL = `with c as (select ${DB_NOW} as now),
  v as (select * from unnest(?::text[], ?::text[], ?::int[], ?::int[]) as v(store_id, subject, window_ms, n))
  insert into storefront_read_counts as r (store_id, subject, window_ms, window_start, count, prev_count, expires_at)
  select v.store_id, v.subject, v.window_ms, c.now - c.now % v.window_ms, v.n, 0, to_timestamp((c.now - c.now % v.window_ms + 2 * v.window_ms) / 1000.0)
    from v, c order by v.store_id, v.subject
  on conflict (store_id, subject) do update set
    prev_count = case when r.window_ms <> excluded.window_ms then 0
                      when excluded.window_start = r.window_start then r.prev_count
                      when excluded.window_start = r.window_start + r.window_ms then r.count
                      else 0 end,
    count = case when r.window_ms = excluded.window_ms and excluded.window_start = r.window_start then r.count + excluded.count else excluded.count end,
    window_ms = excluded.window_ms, window_start = excluded.window_start, expires_at = excluded.expires_at
  returning store_id, subject, window_start, count, prev_count, (select now from c) as now`;

/** One process's read counters; exchanges with the database are one at a time, batched. */
class ReadLimiter {
  private counters = new Map<string, Counter>();
  /** Database clock minus this process's, as of the last exchange. */
  private offset = 0;
  private wanted = new Set<string>();
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly deps: Deps) {}

  take(storeId: string, address: string, rule: LimitRule): void | Promise<void> {
    const subject = addressSubject(address);
    const key = `${storeId}\u0000${subject}`;
    let c = this.counters.get(key);
    if (!c || c.windowMs !== rule.windowMs) {
      if (this.counters.size >= MAX_COUNTERS) this.sweep(true);
      c = { storeId, subject, windowMs: rule.windowMs, max: rule.max, windowStart: 0, count: 0, prev: 0, pending: 0, syncedAt: 0, syncedRemaining: 0 };
      this.counters.set(key, c);
    }
    const counter = c;
    counter.max = rule.max;
    const local = Date.now();
    const stale = local - counter.syncedAt > STALE_MS;
    if (!stale && counter.pending + 1 <= counter.syncedRemaining / 2) return this.decide(counter, rule);
    // Never heard of, long unheard, or this process's unsent share nears what was left: ask first.
    return this.exchange(key).then(
      () => this.decide(counter, rule),
      (err) => {
        this.deps.log.warn({ err: (err as Error).message }, 'storefront read limits: the counts could not be shared; deciding on this process alone');
        this.decide(counter, rule);
      },
    );
  }

  /**
   * Counts the read when this process can decide it alone and it fits; false leaves it uncounted,
   * for `take` to decide (after an exchange, or with a 429 and its wait).
   */
  takeNow(storeId: string, address: string, rule: LimitRule): boolean {
    const c = this.counters.get(`${storeId}\u0000${addressSubject(address)}`);
    if (!c || c.windowMs !== rule.windowMs || c.max !== rule.max) return false;
    if (Date.now() - c.syncedAt > STALE_MS || c.pending + 1 > c.syncedRemaining / 2) return false;
    return this.fits(c, rule, Date.now() + this.offset);
  }

  /** Counts the read, or throws 429 with the honest wait. */
  private decide(c: Counter, rule: LimitRule): void {
    const now = Date.now() + this.offset;
    if (!this.fits(c, rule, now)) throw refusal(this.wait(c, rule, now));
  }

  private fits(c: Counter, rule: LimitRule, now: number): boolean {
    this.roll(c, now);
    const weight = 1 - (now - c.windowStart) / c.windowMs;
    if (c.prev * weight + c.count + c.pending + 1 > rule.max) return false;
    c.pending++;
    return true;
  }

  /** When one more read fits: the previous window's weight falls as time passes, and a full current window passes its count on. */
  private wait(c: Counter, rule: LimitRule, now: number): number {
    const w = c.windowMs;
    const current = c.count + c.pending;
    const end = c.windowStart + w;
    if (current + 1 <= rule.max) {
      // prev * (1 - (t - start) / w) + current + 1 <= max
      return Math.max(0, c.windowStart + w * (1 - (rule.max - current - 1) / c.prev) - now);
    }
    // In the next window this one is the previous: current * (1 - (t - end) / w) + 1 <= max.
    return end - now + Math.max(0, w * (1 - (rule.max - 1) / current));
  }

  /** Moves the counter to the window `now` is in, as the database will. */
  private roll(c: Counter, now: number): void {
    const start = now - (now % c.windowMs);
    if (start <= c.windowStart) return;
    c.prev = start - c.windowStart === c.windowMs ? c.count : 0;
    c.count = 0;
    c.windowStart = start;
  }

  /** Shares every unsent count (and `key`'s, even with none) in one statement; concurrent asks share one exchange. */
  exchange(key?: string): Promise<void> {
    if (key) this.wanted.add(key);
    if (!this.running) {
      this.running = this.run().finally(() => (this.running = null));
      return this.running;
    }
    // One is under way: the next one, shared by every ask made meanwhile, starts when it ends.
    if (!this.queued) {
      const next = () => {
        this.queued = null;
        return this.exchange();
      };
      this.queued = this.running.then(next, next);
    }
    return this.queued;
  }

  private async run(): Promise<void> {
    const keys = [...this.counters.keys()].filter((k) => this.counters.get(k)!.pending > 0 || this.wanted.has(k)).sort();
    this.wanted.clear();
    if (!keys.length) return;
    const sent = keys.map((k) => this.counters.get(k)!);
    const amounts = sent.map((c) => c.pending);
    for (const c of sent) c.pending = 0;
    let rows: Row[];
    try {
      rows = await executePrepared<Row>(this.deps.orm.em, FLUSH_SQL, [sent.map((c) => c.storeId), sent.map((c) => c.subject), sent.map((c) => c.windowMs), amounts]);
    } catch (err) {
      sent.forEach((c, i) => (c.pending += amounts[i]));
      throw err;
    }
    const local = Date.now();
    const byKey = new Map(rows.map((r) => [`${r.store_id}\u0000${r.subject}`, r]));
    for (const key of keys) {
      const c = this.counters.get(key);
      const r = byKey.get(key);
      if (!c || !r) continue;
      const now = Number(r.now);
      this.offset = now - local;
      c.windowStart = Number(r.window_start);
      c.count = r.count;
      c.prev = r.prev_count;
      c.syncedAt = local;
      const weight = 1 - (now - c.windowStart) / c.windowMs;
      c.syncedRemaining = Math.max(0, c.max - (c.prev * weight + c.count));
    }
  }

  /** Forgets subjects whose counts no longer matter (two windows unheard, nothing unsent); all idle ones when `full`. */
  sweep(full = false): void {
    const now = Date.now() + this.offset;
    for (const [key, c] of this.counters) {
      if (c.pending === 0 && (full || now - c.windowStart > 2 * c.windowMs)) this.counters.delete(key);
    }
  }
}

const limiters = new WeakMap<Deps, ReadLimiter>();
function limiterOf(deps: Deps): ReadLimiter {
  let l = limiters.get(deps);
  if (!l) limiters.set(deps, (l = new ReadLimiter(deps)));
  return l;
}

/**
 * Counts one catalog read or cart pricing of `address` in the store against `rule`, or throws 429
 * RATE_LIMITED with Retry-After. No statement on most calls: the answer comes from this process's
 * counters, shared with every replica by the flush (each FLUSH_MS while the address reads); a
 * subject first seen, unheard of for STALE_MS, or whose unsent reads reach half of what was left
 * of its budget is read back first (then the call returns a promise).
 */
export function takeReadSlot(deps: Deps, storeId: string, address: string, rule: LimitRule): void | Promise<void> {
  return limiterOf(deps).take(storeId, address, rule);
}

/** `takeReadSlot` where no statement is needed and the read fits; false: the caller must take the slot's usual way. */
export function takeReadSlotNow(deps: Deps, storeId: string, address: string, rule: LimitRule): boolean {
  return limiterOf(deps).takeNow(storeId, address, rule);
}

/** Sends this process's unsent read counts now (the module does it every FLUSH_MS, and when it stops). */
export function flushReadCounts(deps: Deps): Promise<void> {
  return limiterOf(deps).exchange();
}

/** How often old counters are deleted (background work). */
const PRUNE_MS = 10 * 60_000;

/** Shares read counts while this process serves requests; deletes counters whose windows have passed. */
export const storefrontLimitsModule: Module = {
  name: 'storefront-limits',
  start: async (deps: Deps) => {
    const limiter = limiterOf(deps);
    const timers: NodeJS.Timeout[] = [];
    let ticks = 0;
    if (deps.config.role !== 'worker') {
      timers.push(
        setInterval(() => {
          limiter.exchange().catch((err) => deps.log.warn({ err: (err as Error).message }, 'storefront read limits: flush failed'));
          if (++ticks % 40 === 0) limiter.sweep();
        }, FLUSH_MS).unref(),
      );
    }
    if (runsWork(deps)) {
      timers.push(
        setInterval(() => {
          prune(deps).catch((err) => deps.log.warn({ err: (err as Error).message }, 'storefront limits: pruning failed'));
        }, PRUNE_MS).unref(),
      );
    }
    return async () => {
      for (const t of timers) clearInterval(t);
      await limiter.exchange().catch(() => {});
    };
  },
};

/** Deletes the counters whose windows have all passed. */
/** The same cart ordered by the same phone within this long is a duplicate (its key row lives as long). */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

export async function prune(deps: Deps): Promise<void> {
  await executePrepared(deps.orm.em, 'delete from storefront_checkout_hits where expires_at < now()', []);
  await executePrepared(deps.orm.em, "delete from storefront_order_keys where placed_at < now() - ? * interval '1 millisecond'", [DUPLICATE_WINDOW_MS]);
  await executePrepared(deps.orm.em, 'delete from storefront_read_counts where expires_at < now()', []);
}
