import { createContext, type Deps } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { enforcePolicy, type Policy } from '../core/policy.js';

/** A long-lived reader (a stream, a subscription) whose access is re-checked when it may have changed. */
export interface Watched {
  /** The signed-in user it reads for; null: no user (anonymous, an order's payment token). */
  readonly userId: string | null;
  /** When its token expires (ms since the epoch); null: never. */
  expiresAt: number | null;
  /** Readers with equal keys get the same answer (same token, same view): one check serves them all. */
  readonly checkKey: string;
  /** The token's expiry when access still holds, null when it is gone; throws when it cannot tell. */
  check(): Promise<{ expiresAt: number | null } | null>;
  /** Access is gone: end the reader. */
  revoke(): void;
}

/** Checks run at once after a change; a reconnect (anyone's access may have changed) queues them all. */
const CONCURRENT_CHECKS = 4;

/**
 * Re-checks readers' access when it may have changed, never on a timer per reader: when the auth
 * domain reports a change of a user's tokens or memberships (`AuthCache.watch`, fed by the
 * database's NOTIFYs at commit on every replica), when a token's expiry passes, and again after a
 * check that could not decide (database unreachable).
 */
export class AccessWatch {
  private readonly byUser = new Map<string, Set<Watched>>();
  private readonly expiring = new Set<Watched>();
  private readonly undecided = new Set<Watched>();
  private readonly queue = new Map<string, Watched[]>();
  private running = 0;

  add(w: Watched): void {
    if (w.userId !== null) {
      let set = this.byUser.get(w.userId);
      if (!set) this.byUser.set(w.userId, (set = new Set()));
      set.add(w);
    }
    if (w.expiresAt !== null) this.expiring.add(w);
  }

  remove(w: Watched): void {
    if (w.userId !== null) {
      const set = this.byUser.get(w.userId);
      if (set?.delete(w) && set.size === 0) this.byUser.delete(w.userId);
    }
    this.expiring.delete(w);
    this.undecided.delete(w);
  }

  private watched(w: Watched): boolean {
    return w.userId !== null ? this.byUser.get(w.userId)?.has(w) === true : this.expiring.has(w);
  }

  /** A user's tokens or memberships changed; null: anyone's may have. */
  changed(userId: string | null): void {
    if (userId === null) for (const set of this.byUser.values()) this.recheck(set);
    else {
      const set = this.byUser.get(userId);
      if (set) this.recheck(set);
    }
  }

  /** On the shared heartbeat: expired tokens, and checks that could not decide. */
  tick(now: number): void {
    const due: Watched[] = [...this.undecided];
    this.undecided.clear();
    for (const w of this.expiring) if (w.expiresAt !== null && w.expiresAt <= now) due.push(w);
    this.recheck(due);
  }

  private recheck(readers: Iterable<Watched>): void {
    for (const w of readers) {
      const same = this.queue.get(w.checkKey);
      if (same) {
        if (!same.includes(w)) same.push(w);
      } else this.queue.set(w.checkKey, [w]);
    }
    while (this.running < CONCURRENT_CHECKS && this.queue.size) this.runNext();
  }

  private runNext(): void {
    const [key, readers] = this.queue.entries().next().value!;
    this.queue.delete(key);
    this.running++;
    readers[0]
      .check()
      .then(
        (access) => {
          for (const w of readers) {
            if (!this.watched(w)) continue;
            if (access === null) {
              this.remove(w);
              w.revoke();
            } else {
              w.expiresAt = access.expiresAt;
              if (access.expiresAt === null) this.expiring.delete(w);
              else this.expiring.add(w);
            }
          }
        },
        () => {
          for (const w of readers) if (this.watched(w)) this.undecided.add(w);
        },
      )
      .finally(() => {
        this.running--;
        if (this.queue.size) this.runNext();
      });
  }
}

/**
 * Whether the holder of `authorization` still passes a field's policy for these arguments, as it
 * did when its reader opened: the token resolved afresh, the policy enforced again. With `view`,
 * the caller's view must also still be the same (a changed role may change what it sees).
 */
export async function stillAllowed(
  deps: Deps,
  authorization: string | undefined,
  policy: Policy | undefined,
  args: Record<string, unknown>,
  field: string,
  view?: (ctx: Awaited<ReturnType<typeof createContext>>) => boolean,
): Promise<{ expiresAt: number | null } | null> {
  const ctx = await createContext(deps, authorization, 'realtime');
  try {
    await enforcePolicy(ctx, policy, args, field);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
  if (view && !view(ctx)) return null;
  return { expiresAt: ctx.actor?.expiresAt ?? null };
}
