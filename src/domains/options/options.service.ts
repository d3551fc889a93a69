import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { exponent, isCurrency } from '../../core/money.js';
import { jsonBytes } from '../../lib/json.js';
import { getOptions, OPTIONS_CHANNEL, type OptionEntry } from './options.cache.js';
import type { ConfigsType, CurrencyType, LanguageType, OptionInput, OptionList, OptionPut, OptionsReload, OptionType } from './options.types.js';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const MAX_VALUE_BYTES = 64 * 1024;

const optionView = (o: OptionEntry): OptionType => ({ key: o.key, value: o.value, public: o.public, createdAt: o.createdAt.toISOString(), updatedAt: o.updatedAt.toISOString() });

function checkKey(key: string): string {
  if (!KEY.test(key)) throw invalid('key', 'must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit');
  return key;
}

export function listOptions(ctx: Ctx): OptionList {
  return { data: getOptions(ctx.deps).all().map(optionView) };
}

export function getOption(ctx: Ctx, key: string): OptionType {
  const o = getOptions(ctx.deps).get(checkKey(key));
  if (!o) throw notFound('option');
  return optionView(o);
}

/** Every write moves the version and, on PostgreSQL, tells every replica at commit. */
async function bumpVersion(tx: TxCtx): Promise<number> {
  const [row] = await tx.em.execute<Array<{ version: string }>>(
    `update platform_options_version set version = version + 1 where id = 1 returning version${tx.deps.embedded ? '' : `, pg_notify('${OPTIONS_CHANNEL}', version::text)`}`,
  );
  return Number(row.version);
}

/** This process refreshes itself before answering; the others follow the notification. */
async function write<T>(ctx: Ctx, fn: (tx: TxCtx) => Promise<T>): Promise<T> {
  const result = await transaction(ctx, async (tx) => {
    const r = await fn(tx);
    await bumpVersion(tx);
    return r;
  });
  await getOptions(ctx.deps).refresh();
  return result;
}

export async function putOption(ctx: Ctx, key: string, input: OptionInput): Promise<OptionPut> {
  checkKey(key);
  if (input.value === undefined) throw invalid('value', 'is required (null is a value)');
  if (jsonBytes(input.value) > MAX_VALUE_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `value: must be at most ${MAX_VALUE_BYTES} bytes of JSON`, [{ path: 'value', message: `must be at most ${MAX_VALUE_BYTES} bytes of JSON` }]);
  }
  return write(ctx, async (tx) => {
    const now = new Date();
    const [row] = await tx.em.execute<Array<{ inserted: boolean; created_at: Date | string }>>(
      `insert into platform_options (key, value, public, created_at, updated_at) values (?, ?::jsonb, ?, ?, ?)
       on conflict (key) do update set value = excluded.value, public = excluded.public, updated_at = excluded.updated_at
       returning (xmax = 0) as inserted, created_at`,
      [key, JSON.stringify(input.value), input.public ?? false, now, now],
    );
    const option = optionView({ key, value: input.value, public: input.public ?? false, createdAt: new Date(row.created_at), updatedAt: now });
    return { created: row.inserted, option };
  });
}

export async function deleteOption(ctx: Ctx, key: string): Promise<void> {
  checkKey(key);
  await write(ctx, async (tx) => {
    const [row] = await tx.em.execute<Array<{ key: string }>>('delete from platform_options where key = ? returning key', [key]);
    if (!row) throw notFound('option');
  });
}

/** Every replica reads the options again (a manual edit of the table, a lost notification). */
export async function reloadOptions(ctx: Ctx): Promise<OptionsReload> {
  await write(ctx, async () => undefined);
  return { reloaded: true, version: getOptions(ctx.deps).version };
}

// ─── Configs ─────────────────────────────────────────────────────────────────

/** Payment providers and carriers the platform speaks (CONTRACT-2 §13, §15); stores enable their own. */
const PAYMENT_PROVIDERS = ['cod', 'chargily', 'stripe'];
const CARRIERS = ['yalidine'];
/** Storefront languages unless the `languages` option lists others. */
const DEFAULT_LANGUAGES = ['ar', 'fr', 'en'];

const currencyCache = new Map<string, CurrencyType>();
function currencyInfo(code: string): CurrencyType {
  let c = currencyCache.get(code);
  if (!c) {
    const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(0);
    c = {
      code,
      symbol: parts.find((p) => p.type === 'currency')?.value ?? code,
      name: new Intl.DisplayNames(['en'], { type: 'currency' }).of(code) ?? code,
      precision: exponent(code),
    };
    currencyCache.set(code, c);
  }
  return c;
}

function languageInfo(code: string): LanguageType | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(code);
    return {
      code: canonical,
      name: new Intl.DisplayNames(['en'], { type: 'language' }).of(canonical) ?? canonical,
      nativeName: new Intl.DisplayNames([canonical], { type: 'language' }).of(canonical) ?? canonical,
    };
  } catch {
    return null;
  }
}

/** An option holding a list of strings, or null when unset or of another shape. */
function listOption(ctx: Ctx, key: string): string[] | null {
  const v = getOptions(ctx.deps).get(key)?.value;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
}

/**
 * What a storefront or dashboard needs before signing in. The `currencies` and `languages`
 * options (lists of codes) narrow the defaults: every ISO 4217 code this runtime knows, and
 * Arabic, French and English.
 */
export function configs(ctx: Ctx): ConfigsType {
  const options: Record<string, unknown> = {};
  for (const o of getOptions(ctx.deps).all()) if (o.public) options[o.key] = o.value;
  const config = ctx.deps.config as typeof ctx.deps.config & { aiProvider?: string; aiApiKey?: string | null };
  const currencies = (listOption(ctx, 'currencies') ?? Intl.supportedValuesOf('currency')).filter(isCurrency).map(currencyInfo);
  const languages = (listOption(ctx, 'languages') ?? DEFAULT_LANGUAGES).map(languageInfo).filter((l): l is LanguageType => l !== null);
  return {
    options,
    features: {
      smtp: !!ctx.deps.config.smtpUrl,
      // The local image provider needs nothing; an OpenAI-compatible one needs its key.
      ai: (config.aiProvider ?? 'local') !== 'openai' || !!config.aiApiKey,
      payments: PAYMENT_PROVIDERS,
      carriers: CARRIERS,
    },
    currencies,
    languages,
  };
}
