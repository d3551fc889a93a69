import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseProviderJson } from '../../lib/json.js';
import { loadGot } from '../../lib/got.js';
import {
  CarrierError,
  WebhookMalformed,
  WebhookUnverifiable,
  type CarrierAdapter,
  type CarrierCommune,
  type CarrierEvent,
  type CarrierFees,
  type CarrierLabel,
  type CarrierParcelRequest,
  type CarrierParcelState,
  type CarrierQuota,
  type CarrierWilaya,
  type CreateOutcome,
} from '../carrier.js';
import { CREATED_STATUS, paymentStatusOf, soukStatus } from './statuses.js';

const TIMEOUT_MS = 10_000;
/** Yalidine pages lists; 1000 is its largest page. */
const PAGE_SIZE = 1000;
const MAX_PAGES = 20;
/** Trackings or order ids per lookup: they travel comma-separated in the query string. */
const LOOKUP_CHUNK = 50;
/** Yalidine charges an oversize fee per kilogram above this weight. */
const INCLUDED_WEIGHT_KG = 5;
/** Algeria keeps UTC+1 all year; Yalidine's timestamps are local and carry no offset. */
const ALGIERS_OFFSET = '+01:00';

export interface YalidineOptions {
  baseUrl: string;
  apiId: string;
  apiToken: string;
  timeoutMs?: number;
}

interface ListPage<T> {
  has_more?: boolean;
  data?: T[];
}

interface YalidineParcel {
  tracking: string;
  order_id?: string | null;
  label?: string | null;
  last_status?: string | null;
  date_last_status?: string | null;
  delivery_fee?: number | null;
  payment_status?: string | null;
}

/** "2026-05-09 14:55:00" (Algiers time) or an ISO 8601 instant; null when neither. */
function parseYalidineTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const local = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)$/.exec(value.trim());
  const d = new Date(local ? `${local[1]}T${local[2]}${ALGIERS_OFFSET}` : value);
  // A parcel's news is dated after 1970 and before 10000; anything else is no date (and not one PostgreSQL may refuse).
  const year = d.getUTCFullYear();
  return /^\d{4}-\d\d-\d\d/.test(value) && !Number.isNaN(d.getTime()) && year >= 1970 && year <= 9999 ? d : null;
}

function quotaOf(headers: Record<string, string | string[] | undefined>): CarrierQuota | null {
  const read = (name: string) => {
    const v = headers[`x-${name}-quota-left`];
    return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : null;
  };
  const quota = { second: read('second'), minute: read('minute'), hour: read('hour'), day: read('day') };
  return Object.values(quota).some((v) => v !== null) ? quota : null;
}

/**
 * Seconds until the exhausted quota resets: the Retry-After header when Yalidine sends one,
 * else the end of the shortest window whose quota is spent (the day ends at midnight in Algiers).
 */
function retryAfterOf(headers: Record<string, string | string[] | undefined>, now = new Date()): number {
  const given = headers['retry-after'];
  if (typeof given === 'string' && /^\d+$/.test(given)) return Math.max(1, Number(given));
  const q = quotaOf(headers);
  const spent = (left: number | null | undefined) => left !== null && left !== undefined && left <= 0;
  const local = new Date(now.getTime() + 3600_000);
  const intoHour = local.getUTCMinutes() * 60 + local.getUTCSeconds();
  if (spent(q?.second)) return 1;
  if (spent(q?.minute)) return 60 - local.getUTCSeconds();
  if (spent(q?.hour)) return 3600 - intoHour;
  if (spent(q?.day)) return 86_400 - local.getUTCHours() * 3600 - intoHour;
  return 60;
}

function messageOf(body: string): string {
  try {
    const parsed = parseProviderJson(body) as { error?: { message?: unknown }; message?: unknown };
    const m = parsed.error?.message ?? parsed.message;
    if (typeof m === 'string' && m) return m.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return 'the request was refused';
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);

function parcelState(p: YalidineParcel): CarrierParcelState {
  return {
    orderId: str(p.order_id),
    tracking: p.tracking,
    labelUrl: str(p.label),
    rawStatus: str(p.last_status),
    status: soukStatus(p.last_status),
    occurredAt: parseYalidineTime(p.date_last_status),
    deliveryFee: typeof p.delivery_fee === 'number' ? p.delivery_fee : null,
    paymentStatus: paymentStatusOf(p.payment_status),
  };
}

/** The Yalidine API over HTTP: `X-API-ID`/`X-API-TOKEN` on every call, quota read from each answer. */
export class YalidineCarrier implements CarrierAdapter {
  readonly provider = 'yalidine';
  readonly findsByOrderId = true;
  private readonly base: string;

  constructor(private readonly opts: YalidineOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, query?: Record<string, string>, body?: unknown): Promise<{ data: T; quota: CarrierQuota | null }> {
    const url = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const { default: got, TimeoutError } = await loadGot();
    let res;
    try {
      res = await got(url, {
        method,
        headers: {
          'x-api-id': this.opts.apiId,
          'x-api-token': this.opts.apiToken,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        timeout: { request: this.opts.timeoutMs ?? TIMEOUT_MS },
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
      });
    } catch (err) {
      // The call may have reached Yalidine: a write's outcome is unknown.
      throw new CarrierError('unavailable', err instanceof TimeoutError ? `Yalidine did not answer within ${this.opts.timeoutMs ?? TIMEOUT_MS} ms` : 'Yalidine could not be reached');
    }
    const status = res.statusCode;
    if (status === 401 || status === 403) throw new CarrierError('auth', `Yalidine refused the API credentials (HTTP ${status})`);
    if (status === 429) throw new CarrierError('rate_limited', 'Yalidine rate limit reached', retryAfterOf(res.headers));
    if (status >= 500) throw new CarrierError('unavailable', `Yalidine failed (HTTP ${status})`);
    if (status >= 300) throw new CarrierError('rejected', `Yalidine: ${messageOf(res.body)}`);
    try {
      return { data: parseProviderJson(res.body) as T, quota: quotaOf(res.headers) };
    } catch {
      throw new CarrierError('unavailable', 'Yalidine answered something other than JSON');
    }
  }

  private async list<T>(path: string, query: Record<string, string> = {}): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await this.call<ListPage<T> | T[]>('GET', path, { ...query, page: String(page), page_size: String(PAGE_SIZE) });
      // Yalidine pages every list; a bare array is taken as the whole list.
      if (Array.isArray(data)) return data;
      out.push(...(data.data ?? []));
      if (!data.has_more) break;
    }
    return out;
  }

  async test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }> {
    const started = performance.now();
    const { quota } = await this.call('GET', '/wilayas', { page_size: '1' });
    return { latencyMs: Math.round(performance.now() - started), quota };
  }

  async wilayas(): Promise<CarrierWilaya[]> {
    const rows = await this.list<{ id: number; name: string; is_deliverable?: number | boolean }>('/wilayas');
    return rows.map((w) => ({ code: Number(w.id), name: w.name, deliverable: !!w.is_deliverable }));
  }

  async communes(wilayaCode?: number): Promise<CarrierCommune[]> {
    const q: Record<string, string> = wilayaCode ? { wilaya_id: String(wilayaCode) } : {};
    const [communes, centers] = await Promise.all([
      this.list<{ id: number; name: string; wilaya_id: number; is_deliverable?: number | boolean }>('/communes', q),
      this.list<{ center_id: number; name: string; address?: string | null; commune_id: number }>('/centers', q),
    ]);
    const desks = new Map<string, CarrierCommune['stopDesks']>();
    for (const c of centers) {
      const communeId = String(c.commune_id);
      const list = desks.get(communeId) ?? [];
      list.push({ id: String(c.center_id), name: c.name, address: c.address ?? null, communeId });
      desks.set(communeId, list);
    }
    return communes.map((c) => ({
      id: String(c.id),
      name: c.name,
      wilayaCode: Number(c.wilaya_id),
      deliverable: c.is_deliverable === undefined ? true : !!c.is_deliverable,
      stopDesks: desks.get(String(c.id)) ?? [],
    }));
  }

  async fees(fromWilaya: number, toWilaya: number): Promise<CarrierFees> {
    const { data } = await this.call<{ oversize_fee?: number; per_commune?: Record<string, { commune_id: number; express_home?: number | null; express_desk?: number | null }> }>(
      'GET',
      '/fees',
      { from_wilaya_id: String(fromWilaya), to_wilaya_id: String(toWilaya) },
    );
    return {
      communes: Object.values(data.per_commune ?? {}).map((c) => ({
        communeId: String(c.commune_id),
        home: typeof c.express_home === 'number' ? c.express_home : null,
        stopDesk: typeof c.express_desk === 'number' ? c.express_desk : null,
      })),
      oversizeFeePerKg: typeof data.oversize_fee === 'number' ? data.oversize_fee : 0,
      includedWeightKg: INCLUDED_WEIGHT_KG,
    };
  }

  async create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>> {
    const body = parcels.map((p) => ({
      order_id: p.orderId,
      from_wilaya_name: p.fromWilaya.name,
      firstname: p.firstName,
      familyname: p.lastName,
      contact_phone: p.phone,
      address: p.address,
      to_commune_name: p.communeName,
      to_wilaya_name: p.toWilaya.name,
      product_list: p.productList,
      price: p.codAmount,
      do_insurance: false,
      declared_value: p.codAmount,
      length: 0,
      width: 0,
      height: 0,
      weight: 0,
      // The order's total already holds the shipping cost the customer pays: the sender pays Yalidine.
      freeshipping: true,
      is_stopdesk: p.stopDeskId !== null,
      ...(p.stopDeskId !== null ? { stopdesk_id: p.stopDeskId } : {}),
      has_exchange: false,
    }));
    const { data } = await this.call<Record<string, { success?: boolean; tracking?: string; label?: string | null; message?: string }>>('POST', '/parcels', undefined, body);
    const out = new Map<string, CreateOutcome>();
    for (const p of parcels) {
      const r = data?.[p.orderId];
      if (!r) continue;
      if (r.success && r.tracking) {
        out.set(p.orderId, {
          ok: true,
          parcel: { orderId: p.orderId, tracking: r.tracking, labelUrl: str(r.label), rawStatus: CREATED_STATUS, status: soukStatus(CREATED_STATUS), occurredAt: null, deliveryFee: null, paymentStatus: null },
        });
      } else {
        out.set(p.orderId, { ok: false, message: typeof r.message === 'string' && r.message ? r.message.slice(0, 300) : 'Yalidine refused the parcel' });
      }
    }
    return out;
  }

  async track(query: { trackings?: string[]; orderIds?: string[] }): Promise<CarrierParcelState[]> {
    const out: CarrierParcelState[] = [];
    for (const [param, values] of [['tracking', query.trackings ?? []], ['order_id', query.orderIds ?? []]] as const) {
      for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
        const rows = await this.list<YalidineParcel>('/parcels', { [param]: values.slice(i, i + LOOKUP_CHUNK).join(',') });
        out.push(...rows.filter((r) => typeof r.tracking === 'string').map(parcelState));
      }
    }
    return out;
  }

  async cancel(tracking: string): Promise<boolean> {
    const { data } = await this.call<unknown>('DELETE', `/parcels/${encodeURIComponent(tracking)}`);
    const rows = Array.isArray(data) ? data : data && typeof data === 'object' ? Object.values(data) : [];
    return rows.some((r) => r && typeof r === 'object' && (r as { tracking?: unknown }).tracking === tracking && (r as { deleted?: unknown }).deleted === true);
  }

  /** Yalidine serves each parcel's label at the link it gives with the parcel. */
  async label(tracking: string): Promise<CarrierLabel | null> {
    const [parcel] = await this.track({ trackings: [tracking] });
    return parcel?.labelUrl ? { url: parcel.labelUrl } : null;
  }

  parseWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer, secret: string): CarrierEvent[] {
    return parseYalidineWebhook(headers, raw, secret);
  }
}

/** `X-YALIDINE-SIGNATURE` is the hex HMAC-SHA256 of the raw body, keyed by the webhook's secret. */
function parseYalidineWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer, secret: string): CarrierEvent[] {
  const given = headers['x-yalidine-signature'];
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{64}$/.test(given.trim())) throw new WebhookUnverifiable();
  const expected = createHmac('sha256', secret).update(raw).digest();
  if (!timingSafeEqual(expected, Buffer.from(given.trim(), 'hex'))) throw new WebhookUnverifiable();
  let body: unknown;
  try {
    body = parseProviderJson(raw.toString('utf8'));
  } catch {
    throw new WebhookMalformed('the body is not JSON');
  }
  const batch = body as { type?: unknown; events?: unknown };
  if (!batch || typeof batch !== 'object' || typeof batch.type !== 'string' || !Array.isArray(batch.events)) {
    throw new WebhookMalformed('expected {type, events: [...]}');
  }
  const type = batch.type;
  const events: CarrierEvent[] = [];
  for (const e of batch.events as Array<{ event_id?: unknown; occurred_at?: unknown; data?: Record<string, unknown> }>) {
    const eventId = e && typeof e === 'object' ? str(e.event_id) : null;
    // An event without an id cannot be deduplicated: it is not accepted.
    if (!eventId) continue;
    const data = e.data && typeof e.data === 'object' ? e.data : {};
    const rawStatus = type === 'parcel_status_updated' ? str(data.status) : type === 'parcel_created' ? (str(data.last_status) ?? CREATED_STATUS) : null;
    events.push({
      eventId,
      type,
      occurredAt: parseYalidineTime(e.occurred_at),
      tracking: str(data.tracking),
      orderId: str(data.order_id),
      rawStatus,
      status: type === 'parcel_deleted' ? 'cancelled' : soukStatus(rawStatus),
      reason: str(data.reason),
      paymentStatus: type === 'parcel_payment_updated' ? paymentStatusOf(data.payment_status) : null,
      labelUrl: str(data.label),
    });
  }
  return events;
}
