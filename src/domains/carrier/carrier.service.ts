import type { Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { decryptSecret, encryptSecret } from '../../core/secrets.js';
import { toMajor } from '../../core/money.js';
import { CarrierError } from '../../providers/carrier.js';
import { loadIntegration, markIntegration } from '../integrations/integration.access.js';
import { baseUrlOrigins, CARRIER_PROVIDERS, wilayaCode } from '../integrations/integration.kinds.js';
import { originAllowed } from '../../providers/carrier-http.js';
import { adapterFor, callCarrier, carrierCommunes, carrierFailure, carrierWilayas, requireCarrier } from './carrier.client.js';
import { CarrierWebhook } from './parcel.entity.js';
import type {
  CarrierCommuneList,
  CarrierFeeList,
  CarrierStatisticsType,
  CarrierTestInput,
  CarrierTestResultType,
  CarrierWebhookInput,
  CarrierWebhookType,
  CarrierWilayaFeeList,
  CarrierWilayaList,
} from './carrier.types.js';

export async function listWilayas(ctx: Ctx, storeId: string): Promise<CarrierWilayaList> {
  const handle = await requireCarrier(ctx, storeId);
  const wilayas = await carrierWilayas(ctx, handle);
  return { data: wilayas.map((w) => ({ code: String(w.code), name: w.name, deliverable: w.deliverable })) };
}

function wilayaArg(value: string | null | undefined, path: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const code = wilayaCode(value);
  if (code === null) throw invalid(path, 'must be a wilaya code from 1 to 69');
  return code;
}

export async function listCommunes(ctx: Ctx, storeId: string, wilaya?: string | null): Promise<CarrierCommuneList> {
  const code = wilayaArg(wilaya, 'wilaya');
  const handle = await requireCarrier(ctx, storeId);
  const communes = await carrierCommunes(ctx, handle, code);
  return {
    data: communes.map((c) => ({
      id: c.id,
      name: c.name,
      wilayaCode: String(c.wilayaCode),
      deliverable: c.deliverable,
      stopDesks: c.stopDesks.map((d) => ({ id: d.id, name: d.name, address: d.address })),
    })),
  };
}

/** Fees from the integration's `fromWilaya` to a wilaya; with a commune, the quote for a weight. */
export async function carrierFees(ctx: Ctx, storeId: string, args: { to?: string | null; commune?: string | null; weightKg?: number | null; provider?: string | null }): Promise<CarrierFeeList> {
  const to = wilayaArg(args.to, 'to');
  if (to === undefined) throw invalid('to', 'is required (a wilaya code from 1 to 69)');
  const weightKg = args.weightKg ?? 0;
  if (!Number.isFinite(weightKg) || weightKg < 0 || weightKg > 1000) throw invalid('weightKg', 'must be a number from 0 to 1000');
  const handle = await requireCarrier(ctx, storeId, args.provider);
  const fees = await callCarrier(ctx, handle, (a) => a.fees(handle.fromWilaya, to));
  const data = fees.communes.map((c) => ({ communeId: c.communeId, home: c.home, stopDesk: c.stopDesk }));
  let quote: CarrierFeeList['quote'] = null;
  if (args.commune) {
    const fee = data.find((c) => c.communeId === args.commune);
    if (!fee) throw invalid('commune', `is not a commune of wilaya ${to}`);
    const oversizeFee = Math.max(0, Math.ceil(weightKg - fees.includedWeightKg)) * fees.oversizeFeePerKg;
    quote = {
      communeId: fee.communeId,
      weightKg,
      oversizeFee,
      home: fee.home === null ? null : fee.home + oversizeFee,
      stopDesk: fee.stopDesk === null ? null : fee.stopDesk + oversizeFee,
    };
  }
  return { data, quote };
}

/** Wilayas asked at once when the carrier has no fee table. */
const FEE_CONCURRENCY = 4;

const lowest = (values: Array<number | null>) => {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length ? Math.min(...known) : null;
};

/**
 * Fees to every deliverable wilaya from the integration's `fromWilaya`: the carrier's own table
 * in one call where it has one, else each wilaya's lowest commune fee, a few wilayas at a time.
 */
export async function carrierWilayaFees(ctx: Ctx, storeId: string, provider?: string | null): Promise<CarrierWilayaFeeList> {
  const handle = await requireCarrier(ctx, storeId, provider);
  const deliverable = (await carrierWilayas(ctx, handle)).filter((w) => w.deliverable).map((w) => w.code);
  const byCode = new Map<number, { home: number | null; stopDesk: number | null }>();
  const table = handle.adapter.wilayaFees;
  if (table) {
    for (const r of await callCarrier(ctx, handle, (a) => table.call(a, handle.fromWilaya))) byCode.set(r.wilayaCode, { home: r.home, stopDesk: r.stopDesk });
  } else {
    const queue = [...deliverable];
    const worker = async () => {
      for (let w = queue.shift(); w !== undefined; w = queue.shift()) {
        const fees = await callCarrier(ctx, handle, (a) => a.fees(handle.fromWilaya, w));
        byCode.set(w, { home: lowest(fees.communes.map((c) => c.home)), stopDesk: lowest(fees.communes.map((c) => c.stopDesk)) });
      }
    };
    await Promise.all(Array.from({ length: FEE_CONCURRENCY }, worker));
  }
  const data = deliverable
    .sort((a, b) => a - b)
    .filter((code) => byCode.has(code))
    .map((code) => ({ wilayaCode: String(code), home: byCode.get(code)!.home, stopDesk: byCode.get(code)!.stopDesk }));
  return { data };
}

function parseInstant(value: string | null | undefined, path: string): Date | null {
  if (!value) return null;
  const d = new Date(value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(d.getTime())) throw invalid(path, 'must be an ISO 8601 date or date-time');
  return d;
}

/** Counted from the store's own parcels (no carrier call), created in [createdAfter, createdBefore), of one carrier when `provider` is given. */
export async function carrierStatistics(ctx: Ctx, storeId: string, args: { createdAfter?: string | null; createdBefore?: string | null; provider?: string | null }): Promise<CarrierStatisticsType> {
  const after = parseInstant(args.createdAfter, 'createdAfter');
  const before = parseInstant(args.createdBefore, 'createdBefore');
  if (args.provider && !CARRIER_PROVIDERS[args.provider]) throw invalid('provider', `must be one of ${Object.keys(CARRIER_PROVIDERS).join(', ')}`);
  const provider = args.provider ?? null;
  const rows = await ctx.em.execute<Array<{ status: string; wilaya: string | null; currency: string; n: string | number; cod: string | number }>>(
    `select status, recipient->>'wilayaCode' as wilaya, currency, count(*) as n,
            coalesce(sum(cod_amount) filter (where status = 'delivered'), 0) as cod
       from parcels
      where store_id = ? and (?::timestamptz is null or created_at >= ?) and (?::timestamptz is null or created_at < ?) and (?::text is null or provider = ?)
      group by status, recipient->>'wilayaCode', currency`,
    [storeId, after, after, before, before, provider, provider],
  );
  const byStatus: Record<string, number> = {};
  const byWilaya: CarrierStatisticsType['byWilaya'] = {};
  let cod = 0;
  let currency = 'DZD';
  for (const r of rows) {
    const n = Number(r.n);
    byStatus[r.status] = (byStatus[r.status] ?? 0) + n;
    const w = (byWilaya[r.wilaya ?? 'unknown'] ??= { total: 0, delivered: 0, returned: 0 });
    w.total += n;
    if (r.status === 'delivered') w.delivered += n;
    if (r.status === 'returning' || r.status === 'returned') w.returned += n;
    cod += Number(r.cod);
    currency = r.currency;
  }
  const count = (...statuses: string[]) => statuses.reduce((s, k) => s + (byStatus[k] ?? 0), 0);
  const sent = Object.values(byStatus).reduce((a, b) => a + b, 0) - count('creating', 'cancelled');
  const rate = (n: number) => (sent > 0 ? Math.round((n / sent) * 10_000) / 10_000 : null);
  return { byStatus, deliveredRate: rate(count('delivered')), returnRate: rate(count('returning', 'returned')), codCollected: toMajor(cod, currency), byWilaya };
}

/**
 * Tests the saved credentials (the integration becomes `active` or `error`), or the ones given
 * (nothing saved changes). A refusal answers `ok: false`; a rate limit answers 429.
 */
export async function testConnection(ctx: Ctx, storeId: string, input: CarrierTestInput | null | undefined): Promise<CarrierTestResultType> {
  const given = input?.credentials ?? null;
  const loaded = await loadIntegration(ctx, storeId, 'carrier');
  const provider = loaded?.row.provider ?? 'yalidine';
  let adapter;
  if (given) {
    // Given credentials stand in for the saved ones, field by field.
    const saved = loaded?.config ?? {};
    const pick = (g: string | null | undefined, s: unknown) => g ?? (typeof s === 'string' ? s : undefined);
    const baseUrl = pick(given.baseUrl, saved.baseUrl);
    if (given.baseUrl && !originAllowed(given.baseUrl, baseUrlOrigins(ctx.deps.config, provider))) {
      throw invalid('input.credentials.baseUrl', `must be an address of ${provider} allowed by this server`);
    }
    adapter = adapterFor(ctx.deps, provider, {
      apiId: pick(given.apiId, saved.apiId),
      baseUrl,
      userGuid: pick(given.userGuid, saved.userGuid),
      apiToken: given.apiToken,
      apiKey: given.apiKey ?? loaded?.secrets.apiKey,
    });
  } else {
    adapter = (await requireCarrier(ctx, storeId)).adapter;
  }
  const started = performance.now();
  try {
    const { latencyMs, quota } = await adapter.test();
    if (!given) await markIntegration(ctx, storeId, 'carrier', { ok: true });
    return { ok: true, latencyMs, quota, error: null };
  } catch (err) {
    if (!(err instanceof CarrierError) || err.kind === 'rate_limited') throw await carrierFailure(ctx, { storeId, provider }, err);
    if (!given) await markIntegration(ctx, storeId, 'carrier', { ok: false, error: err.message });
    return { ok: false, latencyMs: Math.round(performance.now() - started), quota: null, error: err.message };
  }
}

// ---- the carrier's webhook, as the store manages it ----

export function webhookUrl(ctx: Ctx, storeId: string): string {
  return `${ctx.deps.config.publicUrl.replace(/\/+$/, '')}/v1/stores/${encodeURIComponent(storeId)}/integrations/carrier/webhook`;
}

function webhookView(ctx: Ctx, storeId: string, row: CarrierWebhook | null): CarrierWebhookType {
  return { url: webhookUrl(ctx, storeId), active: row?.active ?? true, hasSecret: !!row?.secretEnc, lastEventAt: row?.lastEventAt ? row.lastEventAt.toISOString() : null };
}

export async function getCarrierWebhook(ctx: Ctx, storeId: string): Promise<CarrierWebhookType> {
  return webhookView(ctx, storeId, await ctx.em.findOne(CarrierWebhook, { storeId }));
}

/** PUT sets both fields (active defaults to true; an omitted secret stays); PATCH only those given. */
export async function saveCarrierWebhook(ctx: Ctx, storeId: string, input: CarrierWebhookInput, mode: 'put' | 'patch'): Promise<CarrierWebhookType> {
  if (mode === 'put' && input.secret === null) throw invalid('secret', 'must be a string (DELETE removes it)');
  const now = new Date();
  let row = await ctx.em.findOne(CarrierWebhook, { storeId });
  row ??= ctx.em.create(CarrierWebhook, { storeId, createdAt: now });
  if (input.secret !== undefined) row.secretEnc = input.secret === null ? null : encryptSecret(ctx.deps.config.secretKey, input.secret);
  if (mode === 'put') row.active = input.active ?? true;
  else if (input.active !== undefined && input.active !== null) row.active = input.active;
  row.updatedAt = now;
  await ctx.em.flush();
  return webhookView(ctx, storeId, row);
}

export async function deleteCarrierWebhook(ctx: Ctx, storeId: string): Promise<void> {
  await ctx.em.nativeDelete(CarrierWebhook, { storeId });
}

/** The secret the carrier signs its webhooks with, when the store's webhook is on. */
export async function activeWebhookSecret(ctx: Ctx, storeId: string): Promise<string | null> {
  const row = await ctx.em.findOne(CarrierWebhook, { storeId });
  if (!row || !row.active || !row.secretEnc) return null;
  try {
    return decryptSecret(ctx.deps.config.secretKey, row.secretEnc);
  } catch {
    throw new AppError('INTERNAL', 'A stored webhook secret cannot be decrypted (was SOUK_SECRET_KEY changed?)');
  }
}
