import type { EntityManager } from '@mikro-orm/postgresql';
import type { PurchaseOrder } from './purchase-order.entity.js';
import type { Ctx, Deps } from '../../core/context.js';
import { AppError, type FieldError } from '../../core/errors.js';
import { enforceTogether, SlidingWindowLimiter } from '../../lib/rate-limit.js';

/**
 * What keeps `/send` from being a mail relay: mail goes only to the supplier's address and to
 * addresses the store has proven it controls (the verified emails of its members), at a bounded
 * rate per store and per user, and the platform's own words frame whatever the user wrote.
 */

const normal = (email: string) => email.trim().toLowerCase();

/** Refuses, at its path, every address that is neither the supplier's nor a member's verified email. */
export async function checkRecipients(ctx: Ctx, po: PurchaseOrder, lists: { to: string[]; cc: string[] }): Promise<void> {
  const supplier = po.supplier.email ? normal(po.supplier.email) : null;
  const others = [...new Set([...lists.to, ...lists.cc].map(normal).filter((e) => e !== supplier))];
  const verified = new Set<string>();
  if (others.length) {
    const rows = await (ctx.em as EntityManager).execute<Array<{ email: string }>>(
      `select lower(u.email) as email from store_members m join users u on u.id = m.user_id
        where m.store_id = ? and u.email_verified_at is not null and lower(u.email) in (${others.map(() => '?').join(', ')})`,
      [po.storeId, ...others],
    );
    for (const r of rows) verified.add(r.email);
  }
  const errors: FieldError[] = [];
  for (const key of ['to', 'cc'] as const) {
    lists[key].forEach((email, i) => {
      const e = normal(email);
      if (e !== supplier && !verified.has(e)) errors.push({ path: `${key}.${i}`, message: "must be the supplier's email or a verified email of a member of this store" });
    });
  }
  if (errors.length) throw new AppError('VALIDATION_FAILED', `${errors[0].path}: ${errors[0].message}`, errors);
}

const HOUR = 3_600_000;
const limiters = new WeakMap<Deps, { store: SlidingWindowLimiter; user: SlidingWindowLimiter }>();

/** One mailing counted against the store and the caller; over either limit → 429 with Retry-After, and neither is counted. */
export function limitSend(ctx: Ctx, storeId: string): void {
  let l = limiters.get(ctx.deps);
  if (!l) {
    const { poSendsPerStoreHour, poSendsPerUserHour } = ctx.deps.config;
    limiters.set(ctx.deps, (l = { store: new SlidingWindowLimiter(poSendsPerStoreHour, HOUR), user: new SlidingWindowLimiter(poSendsPerUserHour, HOUR) }));
  }
  enforceTogether([[l.store, storeId], ...(ctx.actor ? ([[l.user, ctx.actor.userId]] as Array<[SlidingWindowLimiter, string]>) : [])]);
}

/** One line, no control characters: what user text may become in a header. */
const oneLine = (s: string, max: number) => s.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, max);

/** The subject: always the platform's words naming the PO and the store; the user's subject follows. */
export function mailSubject(storeName: string, number: string, subject: string | null): string {
  const frame = `Purchase order ${number} from ${oneLine(storeName, 200)}`;
  const own = subject ? oneLine(subject, 300) : '';
  return own ? `${frame}: ${own}` : frame;
}

/** Plain text only: the user's message is quoted, line by line, inside a fixed frame naming the store. */
export function mailText(storeName: string, number: string, message: string | null): string {
  const store = oneLine(storeName, 200);
  const lines = [`${store} sent you purchase order ${number} through Souk. The purchase order is attached as a PDF.`, ''];
  const own = message?.replace(/\r\n?/g, '\n').replace(/[^\P{Cc}\n\t]/gu, '').trim();
  if (own) lines.push(`Message from ${store}:`, ...own.split('\n').map((l) => `> ${l}`.trimEnd()), '');
  lines.push('--', `Souk sent this email on behalf of ${store}, a store on Souk. Reply to the store directly; this address does not read replies.`);
  return `${lines.join('\n')}\n`;
}
