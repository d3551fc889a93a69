import { LockMode } from '@mikro-orm/core';
import { parse as parseIcu } from '@formatjs/icu-messageformat-parser';
import { StoreTemplate, StoreTemplateLocale } from './store-template.entity.js';
import type {
  StoreTemplateInput,
  StoreTemplateLocaleInput,
  StoreTemplateLocalePut,
  StoreTemplateLocalesInput,
  StoreTemplateLocalesType,
  StoreTemplateLocaleType,
  StoreTemplateLocaleUpdateInput,
  StoreTemplatePage,
  StoreTemplateType,
  StoreTemplateUpdateInput,
} from './store-template.types.js';
import type { Ctx } from '../../core/context.js';
import { conflict, invalid, notFound } from '../../core/errors.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';

const MAX_MESSAGES = 5000;
const MAX_KEY = 200;
const MAX_MESSAGE = 10_000;
const MAX_LOCALES = 100;

/** BCP 47, canonical (`EN-us` → `en-US`); a tag Intl cannot read → 400 at `path`. */
export function canonicalLocale(tag: string, path: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (canonical) return canonical;
  } catch {
    // RangeError: not a well-formed tag.
  }
  throw invalid(path, 'is not a valid BCP 47 language tag');
}

/** Flat key → string messages, each one parsing as ICU MessageFormat (400 at its key). */
export function checkMessages(input: Record<string, unknown> | null | undefined, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Object.entries(input ?? {});
  if (entries.length > MAX_MESSAGES) throw invalid(path, `must hold at most ${MAX_MESSAGES} messages`);
  for (const [key, message] of entries) {
    const at = `${path}.${key}`;
    if (key.length < 1 || key.length > MAX_KEY) throw invalid(at, `keys must be 1 to ${MAX_KEY} characters`);
    if (typeof message !== 'string') throw invalid(at, 'must be a string (messages are flat: key → ICU message)');
    if (message.length > MAX_MESSAGE) throw invalid(at, `must be at most ${MAX_MESSAGE} characters`);
    try {
      parseIcu(message);
    } catch (err) {
      throw invalid(at, `is not a valid ICU MessageFormat message (${(err as Error).message})`);
    }
    Object.defineProperty(out, key, { value: message, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function templateView(t: StoreTemplate): StoreTemplateType {
  return { id: t.id, storeId: t.storeId, name: t.name, defaultLocale: t.defaultLocale, createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString() };
}

function rowView(t: StoreTemplate, r: StoreTemplateLocale): StoreTemplateLocaleType {
  return { locale: r.locale, messages: r.messages, isDefault: r.locale === t.defaultLocale, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() };
}

async function findTemplate(ctx: Ctx, storeId: string, id: string, lock = false): Promise<StoreTemplate> {
  const t = await ctx.em.findOne(StoreTemplate, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!t) throw notFound('store template');
  return t;
}

export async function listTemplates(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null }): Promise<StoreTemplatePage> {
  const limit = pageLimit(f.limit);
  const rows = await ctx.em.find(StoreTemplate, { storeId, ...(f.cursor ? { id: { $lt: f.cursor } } : {}) }, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(templateView), nextCursor: p.nextCursor };
}

export async function getTemplate(ctx: Ctx, storeId: string, id: string): Promise<StoreTemplateType> {
  return templateView(await findTemplate(ctx, storeId, id));
}

export async function createTemplate(ctx: Ctx, storeId: string, input: StoreTemplateInput): Promise<StoreTemplateType> {
  return transaction(ctx, async (tx) => {
    const t = tx.em.create(StoreTemplate, {
      storeId,
      name: input.name.trim(),
      defaultLocale: input.defaultLocale ? canonicalLocale(input.defaultLocale, 'defaultLocale') : null,
    });
    await tx.em.flush();
    return templateView(t);
  });
}

export async function updateTemplate(ctx: Ctx, storeId: string, id: string, input: StoreTemplateUpdateInput): Promise<StoreTemplateType> {
  return transaction(ctx, async (tx) => {
    const t = await findTemplate(tx, storeId, id, true);
    if (input.name != null) t.name = input.name.trim();
    if (input.defaultLocale !== undefined) {
      const rows = await tx.em.find(StoreTemplateLocale, { templateId: id }, { fields: ['locale'] });
      const next = input.defaultLocale === null ? null : canonicalLocale(input.defaultLocale, 'defaultLocale');
      if (rows.length && !rows.some((r) => r.locale === next)) throw invalid('defaultLocale', 'must be one of the locales of this template');
      t.defaultLocale = next;
    }
    t.updatedAt = new Date();
    await tx.em.flush();
    return templateView(t);
  });
}

export async function deleteTemplate(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findTemplate(tx, storeId, id, true));
    await tx.em.flush();
  });
}

// ─── Locales ─────────────────────────────────────────────────────────────────

function bundle(t: StoreTemplate, rows: StoreTemplateLocale[]): StoreTemplateLocalesType {
  rows.sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0));
  const base = rows.find((r) => r.locale === t.defaultLocale);
  // Without a default row, coverage is measured against every key any locale has.
  const keys = base ? Object.keys(base.messages) : [...new Set(rows.flatMap((r) => Object.keys(r.messages)))];
  const coverage: StoreTemplateLocalesType['coverage'] = {};
  const messages: StoreTemplateLocalesType['messages'] = {};
  for (const r of rows) {
    const missing = keys.filter((k) => !Object.hasOwn(r.messages, k)).sort();
    coverage[r.locale] = { missing, percent: keys.length ? Math.round(((keys.length - missing.length) / keys.length) * 10_000) / 100 : 100 };
    messages[r.locale] = r.messages;
  }
  return { defaultLocale: t.defaultLocale, locales: rows.map((r) => r.locale), messages, rows: rows.map((r) => rowView(t, r)), coverage };
}

export async function listLocales(ctx: Ctx, storeId: string, id: string): Promise<StoreTemplateLocalesType> {
  const t = await findTemplate(ctx, storeId, id);
  return bundle(t, await ctx.em.find(StoreTemplateLocale, { templateId: id }));
}

/** Locale writes lock the template row: the default and the set change one writer at a time. */
async function lockedTemplate(tx: TxCtx, storeId: string, id: string) {
  const t = await findTemplate(tx, storeId, id, true);
  const rows = await tx.em.find(StoreTemplateLocale, { templateId: id });
  return { t, rows };
}

function addRow(tx: TxCtx, t: StoreTemplate, rows: StoreTemplateLocale[], locale: string, messages: Record<string, string>, isDefault: boolean | null | undefined) {
  if (rows.length >= MAX_LOCALES) throw invalid('locale', `a template holds at most ${MAX_LOCALES} locales`);
  const row = tx.em.create(StoreTemplateLocale, { templateId: t.id, locale, messages });
  // A template without a default has no locales yet: its first one becomes the default.
  if (isDefault || t.defaultLocale === null) t.defaultLocale = locale;
  rows.push(row);
  return row;
}

export async function createLocale(ctx: Ctx, storeId: string, id: string, input: StoreTemplateLocaleInput): Promise<StoreTemplateLocaleType> {
  const locale = canonicalLocale(input.locale, 'locale');
  const messages = checkMessages(input.messages, 'messages');
  return transaction(ctx, async (tx) => {
    const { t, rows } = await lockedTemplate(tx, storeId, id);
    if (rows.some((r) => r.locale === locale)) throw conflict(`The locale ${locale} already exists in this template`);
    const row = addRow(tx, t, rows, locale, messages, input.isDefault);
    t.updatedAt = new Date();
    await tx.em.flush();
    return rowView(t, row);
  });
}

/** PUT on one locale: 201 when it is new, else its messages (when given) are replaced. */
export async function putLocale(ctx: Ctx, storeId: string, id: string, rawLocale: string, input: StoreTemplateLocaleUpdateInput): Promise<StoreTemplateLocalePut> {
  const locale = canonicalLocale(rawLocale, 'locale');
  const messages = input.messages != null ? checkMessages(input.messages, 'messages') : null;
  return transaction(ctx, async (tx) => {
    const { t, rows } = await lockedTemplate(tx, storeId, id);
    let row = rows.find((r) => r.locale === locale);
    const created = !row;
    if (!row) {
      row = addRow(tx, t, rows, locale, messages ?? {}, input.isDefault);
    } else {
      if (input.isDefault === false && t.defaultLocale === locale) throw conflict('This is the default locale; make another locale the default instead');
      if (messages) row.messages = messages;
      if (input.isDefault) t.defaultLocale = locale;
      row.updatedAt = new Date();
    }
    t.updatedAt = new Date();
    await tx.em.flush();
    return { created, locale: rowView(t, row) };
  });
}

/** Replaces the whole set: rows not given go, given ones are created or replaced. */
export async function replaceLocales(ctx: Ctx, storeId: string, id: string, input: StoreTemplateLocalesInput): Promise<StoreTemplateLocalesType> {
  const seen = new Map<string, number>();
  const wanted = input.locales.map((l, i) => {
    const locale = canonicalLocale(l.locale, `locales.${i}.locale`);
    if (seen.has(locale)) throw invalid(`locales.${i}.locale`, `repeats ${locale} (also at locales.${seen.get(locale)})`);
    seen.set(locale, i);
    return { locale, messages: checkMessages(l.messages, `locales.${i}.messages`), isDefault: l.isDefault === true };
  });
  const flagged = wanted.filter((w) => w.isDefault);
  if (flagged.length > 1) throw invalid(`locales.${seen.get(flagged[1].locale)}.isDefault`, 'only one locale can be the default');
  return transaction(ctx, async (tx) => {
    const { t, rows } = await lockedTemplate(tx, storeId, id);
    const byLocale = new Map(rows.map((r) => [r.locale, r]));
    const now = new Date();
    const kept: StoreTemplateLocale[] = [];
    for (const w of wanted) {
      const existing = byLocale.get(w.locale);
      if (existing) {
        existing.messages = w.messages;
        existing.updatedAt = now;
        kept.push(existing);
        byLocale.delete(w.locale);
      } else {
        kept.push(tx.em.create(StoreTemplateLocale, { templateId: t.id, locale: w.locale, messages: w.messages }));
      }
    }
    for (const gone of byLocale.values()) tx.em.remove(gone);
    t.defaultLocale = flagged[0]?.locale ?? (wanted.some((w) => w.locale === t.defaultLocale) ? t.defaultLocale : (wanted[0]?.locale ?? null));
    t.updatedAt = now;
    await tx.em.flush();
    return bundle(t, kept);
  });
}

/** The default goes only with the last locale (409 while others remain). */
export async function deleteLocale(ctx: Ctx, storeId: string, id: string, rawLocale: string): Promise<void> {
  const locale = canonicalLocale(rawLocale, 'locale');
  await transaction(ctx, async (tx) => {
    const { t, rows } = await lockedTemplate(tx, storeId, id);
    const row = rows.find((r) => r.locale === locale);
    if (!row) throw notFound('locale');
    if (t.defaultLocale === locale) {
      if (rows.length > 1) throw conflict('The default locale cannot be deleted while other locales remain; make another one the default first');
      t.defaultLocale = null;
    }
    tx.em.remove(row);
    t.updatedAt = new Date();
    await tx.em.flush();
  });
}
