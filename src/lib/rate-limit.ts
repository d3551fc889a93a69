import { AppError } from '../core/errors.js';

/**
 * A sliding-window log per key, in process memory: enough for one instance, and it
 * forgets everything on restart (documented in docs/auth.md).
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Records one attempt; returns 0 when allowed, else the seconds until one slot frees. */
  hit(key: string, now = Date.now()): number {
    const wait = this.wait(key, now);
    if (!wait) this.hits.get(key)!.push(now);
    return wait;
  }

  /** 0 when one more attempt is allowed now, else the seconds until one slot frees; records nothing. */
  wait(key: string, now = Date.now()): number {
    this.sweep(now);
    const since = now - this.windowMs;
    const log = (this.hits.get(key) ?? []).filter((t) => t > since);
    this.hits.set(key, log);
    return log.length >= this.limit ? Math.max(1, Math.ceil((log[0] + this.windowMs - now) / 1000)) : 0;
  }

  /** Drops idle keys now and then so the map stays bounded by the active callers. */
  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, log] of this.hits) if (!log.length || log[log.length - 1] <= now - this.windowMs) this.hits.delete(key);
  }
}

const refuse = (wait: number) => new AppError('RATE_LIMITED', `Too many attempts; retry in ${wait} s`, undefined, { 'Retry-After': String(wait) });

/** Checks every key (all are counted, so spreading over emails does not dodge the IP limit). */
export function enforce(entries: Array<[SlidingWindowLimiter, string]>): void {
  const wait = Math.max(...entries.map(([limiter, key]) => limiter.hit(key)));
  if (wait > 0) throw refuse(wait);
}

/** Counts one attempt against every key only when all allow it: a refusal by one costs the others nothing. */
export function enforceTogether(entries: Array<[SlidingWindowLimiter, string]>): void {
  const wait = Math.max(...entries.map(([limiter, key]) => limiter.wait(key)));
  if (wait > 0) throw refuse(wait);
  for (const [limiter, key] of entries) limiter.hit(key);
}
