import {
  CarrierError,
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
  type CarrierWilayaFee,
  type CreateOutcome,
} from '../carrier.js';
import { algiersTime, carrierFetch, carrierJson, carrierPdf, dinars, fold, refusalMessage, text, type CarrierCall } from '../carrier-http.js';
import { wilayaName } from '../wilayas.js';

const NAME = 'Ecotrack';
/** create/orders and get/orders/status take at most 100 orders each. */
const CHUNK = 100;
/** get/orders pages hold 40 orders; a lost creation is looked for among the last week's. */
const LOOKBACK_DAYS = 7;
const MAX_PAGES = 25;

/**
 * Ecotrack's order statuses (`get/orders`, `get/orders/status`) and the Souk parcel status and
 * cash state each one means.
 */
const STATUSES: Record<string, { status: string; payment?: string }> = {
  prete_a_expedier: { status: 'pending' },
  en_ramassage: { status: 'pending' },
  en_preparation_stock: { status: 'pending' },
  vers_hub: { status: 'picked_up' },
  en_hub: { status: 'in_transit' },
  vers_wilaya: { status: 'in_transit' },
  en_preparation: { status: 'in_transit' },
  en_livraison: { status: 'out_for_delivery' },
  suspendu: { status: 'on_hold' },
  livre_non_encaisse: { status: 'delivered', payment: 'not_ready' },
  encaisse_non_paye: { status: 'delivered', payment: 'receivable' },
  paiements_prets: { status: 'delivered', payment: 'ready' },
  paye_et_archive: { status: 'delivered', payment: 'paid' },
  retour_chez_livreur: { status: 'returning' },
  retour_transit_entrepot: { status: 'returning' },
  retour_en_traitement: { status: 'returning' },
  retour_recu: { status: 'returned' },
  retour_archive: { status: 'returned' },
  annule: { status: 'cancelled' },
};

/** The Souk status and cash state of an Ecotrack status key. */
export function ecotrackStatus(raw: string | null): { status: string | null; payment: string | null } {
  const s = raw ? STATUSES[fold(raw)] : undefined;
  return { status: s?.status ?? null, payment: s?.payment ?? null };
}

/** The status Ecotrack gives an order it just created. */
const CREATED_STATUS = 'prete_a_expedier';

export interface EcotrackOptions {
  /** The courier's Ecotrack address, e.g. https://dhd.ecotrack.dz (checked against the allow-list by the caller). */
  baseUrl: string;
  apiToken: string;
  timeoutMs?: number;
}

interface OrderRow {
  tracking?: unknown;
  reference?: unknown;
  status?: unknown;
  tarif_prestation?: unknown;
}

interface StatusEntry {
  status?: unknown;
  activity?: Array<{ date?: unknown; time?: unknown }>;
}

/** Laravel answers a list as an array, or as an object keyed by index. */
const rowsOf = <T>(v: unknown): T[] => (Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : []) as T[];

function quotaOf(headers: Record<string, string | string[] | undefined>): CarrierQuota | null {
  const read = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
  };
  const quota = { second: null, minute: read('x-ratelimit-remaining'), hour: read('x-ratelimit-remaining-hour'), day: read('x-ratelimit-remaining-day') };
  return quota.minute === null && quota.hour === null && quota.day === null ? null : quota;
}

/**
 * The Ecotrack API v1 that many Algerian couriers run under their own address: a bearer token,
 * French snake_case fields, orders created in batches keyed by `reference` (Souk's order id).
 * Ecotrack pushes nothing: parcels are polled.
 */
export class EcotrackCarrier implements CarrierAdapter {
  readonly provider = 'ecotrack';
  readonly findsByOrderId = true;
  private readonly base: string;

  constructor(private readonly opts: EcotrackOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  private url(path: string, query: Record<string, string> = {}): URL {
    const u = new URL(`${this.base}/api/v1/${path}`);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    return u;
  }

  private call(method: CarrierCall['method'], json?: unknown): CarrierCall {
    return { method, json, headers: { authorization: `Bearer ${this.opts.apiToken}` }, timeoutMs: this.opts.timeoutMs };
  }

  private json<T>(path: string, query: Record<string, string> = {}, method: CarrierCall['method'] = 'GET', body?: unknown): Promise<T> {
    return carrierJson<T>(NAME, this.url(path, query), this.call(method, body));
  }

  async test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }> {
    const started = performance.now();
    const answer = await carrierFetch(NAME, this.url('get/wilayas'), this.call('GET'));
    if (answer.status >= 300) throw new CarrierError('rejected', `${NAME} refused the call (HTTP ${answer.status})`);
    return { latencyMs: Math.round(performance.now() - started), quota: quotaOf(answer.headers) };
  }

  /** The wilayas this courier serves: the others are absent from Ecotrack's list. */
  async wilayas(): Promise<CarrierWilaya[]> {
    const rows = rowsOf<{ wilaya_id?: unknown; wilaya_name?: unknown }>(await this.json('get/wilayas'));
    return rows
      .filter((w) => Number.isInteger(Number(w.wilaya_id)))
      .map((w) => ({ code: Number(w.wilaya_id), name: text(w.wilaya_name) ?? wilayaName(Number(w.wilaya_id)) ?? String(w.wilaya_id), deliverable: true }));
  }

  /** Communes carry no id at Ecotrack: their postal code names them (and the stop desk they hold). */
  async communes(wilayaCode?: number): Promise<CarrierCommune[]> {
    const rows = rowsOf<{ nom?: unknown; wilaya_id?: unknown; code_postal?: unknown; has_stop_desk?: unknown }>(
      await this.json('get/communes', wilayaCode ? { wilaya_id: String(wilayaCode) } : {}),
    );
    return rows
      .filter((c) => text(c.nom) && Number.isInteger(Number(c.wilaya_id)))
      .map((c) => {
        const name = text(c.nom)!;
        const id = text(c.code_postal) ?? `${Number(c.wilaya_id)}-${name}`;
        const desk = Number(c.has_stop_desk) === 1;
        return { id, name, wilayaCode: Number(c.wilaya_id), deliverable: true, stopDesks: desk ? [{ id, name, address: null, communeId: id }] : [] };
      });
  }

  async wilayaFees(): Promise<CarrierWilayaFee[]> {
    const body = await this.json<{ livraison?: unknown }>('get/fees');
    return rowsOf<{ wilaya_id?: unknown; tarif?: unknown; tarif_stopdesk?: unknown }>(body?.livraison)
      .filter((r) => Number.isInteger(Number(r.wilaya_id)))
      .map((r) => ({ wilayaCode: Number(r.wilaya_id), home: dinars(r.tarif), stopDesk: dinars(r.tarif_stopdesk) }));
  }

  /** Ecotrack prices by wilaya: every commune of the wilaya gets its fees, stop desk where there is one. */
  async fees(_fromWilaya: number, toWilaya: number): Promise<CarrierFees> {
    const [table, communes] = await Promise.all([this.wilayaFees(), this.communes(toWilaya)]);
    const row = table.find((r) => r.wilayaCode === toWilaya);
    return {
      communes: row ? communes.map((c) => ({ communeId: c.id, home: row.home, stopDesk: c.stopDesks.length ? row.stopDesk : null })) : [],
      oversizeFeePerKg: 0,
      includedWeightKg: 0,
    };
  }

  async create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>> {
    const out = new Map<string, CreateOutcome>();
    for (let i = 0; i < parcels.length; i += CHUNK) {
      const chunk = parcels.slice(i, i + CHUNK);
      const orders = Object.fromEntries(
        chunk.map((p, n) => [
          String(n),
          {
            reference: p.orderId,
            nom_client: `${p.firstName} ${p.lastName}`.trim(),
            telephone: p.phone,
            adresse: p.address,
            commune: p.communeName,
            code_wilaya: p.toWilaya.code,
            montant: p.codAmount,
            produit: p.productList,
            type: 1,
            stop_desk: p.stopDeskId !== null ? 1 : 0,
            ...(p.stopDeskId !== null ? { code_postal: p.stopDeskId } : {}),
          },
        ]),
      );
      const body = await this.json<{ results?: Record<string, unknown> }>('create/orders', {}, 'POST', { orders });
      for (const p of chunk) {
        const r = body?.results?.[p.orderId] as Record<string, unknown> | undefined;
        if (!r || typeof r !== 'object') continue;
        const tracking = text(r.tracking);
        if (r.success === true && tracking) {
          out.set(p.orderId, {
            ok: true,
            parcel: { orderId: p.orderId, tracking, labelUrl: null, rawStatus: CREATED_STATUS, status: ecotrackStatus(CREATED_STATUS).status, occurredAt: null, deliveryFee: null, paymentStatus: null },
          });
        } else {
          // A refusal is either {success: false, message} or Laravel's {field: [messages]}.
          const messages = Object.values(r).flat().filter((m): m is string => typeof m === 'string');
          out.set(p.orderId, { ok: false, message: (refusalMessage(r) ?? messages[0] ?? 'Ecotrack refused the parcel').slice(0, 300) });
        }
      }
    }
    return out;
  }

  async track(query: { trackings?: string[]; orderIds?: string[] }): Promise<CarrierParcelState[]> {
    const out: CarrierParcelState[] = [];
    const trackings = query.trackings ?? [];
    for (let i = 0; i < trackings.length; i += CHUNK) {
      // This endpoint authenticates with api_token in the query, not the bearer header.
      const body = await this.json<{ data?: Record<string, StatusEntry> }>('get/orders/status', {
        api_token: this.opts.apiToken,
        trackings: trackings.slice(i, i + CHUNK).join(','),
        status: 'all',
      });
      for (const [tracking, entry] of Object.entries(body?.data ?? {})) {
        if (!entry || typeof entry !== 'object') continue;
        const raw = text(entry.status);
        const last = Array.isArray(entry.activity) ? entry.activity[entry.activity.length - 1] : undefined;
        const { status, payment } = ecotrackStatus(raw);
        out.push({
          orderId: null,
          tracking,
          labelUrl: null,
          rawStatus: raw,
          status,
          occurredAt: last ? algiersTime(`${text(last.date) ?? ''} ${text(last.time) ?? '00:00:00'}`) : null,
          deliveryFee: null,
          paymentStatus: payment,
        });
      }
    }
    if (query.orderIds?.length) out.push(...(await this.findByReference(new Set(query.orderIds))));
    return out;
  }

  /** Orders carry Souk's order id as `reference`; the week's orders are read page by page to find them. */
  private async findByReference(wanted: Set<string>): Promise<CarrierParcelState[]> {
    const since = new Date(Date.now() - LOOKBACK_DAYS * 86_400_000).toISOString().slice(0, 10);
    const found: CarrierParcelState[] = [];
    for (let page = 1; page <= MAX_PAGES && found.length < wanted.size; page++) {
      const body = await this.json<{ data?: OrderRow[]; last_page?: unknown }>('get/orders', { page: String(page), start_date: since });
      for (const r of rowsOf<OrderRow>(body?.data)) {
        const reference = text(r.reference);
        const tracking = text(r.tracking);
        if (!reference || !tracking || !wanted.has(reference)) continue;
        const raw = text(r.status);
        const { status, payment } = ecotrackStatus(raw);
        found.push({ orderId: reference, tracking, labelUrl: null, rawStatus: raw, status, occurredAt: null, deliveryFee: dinars(r.tarif_prestation), paymentStatus: payment });
      }
      if (!(Number(body?.last_page) > page)) break;
    }
    return found;
  }

  /** Ecotrack deletes an order only before it is validated (shipped); it answers success or not. */
  async cancel(tracking: string): Promise<boolean> {
    const body = await this.json<{ success?: unknown; delete?: unknown }>('delete/order', { tracking }, 'DELETE');
    return body?.success === true || body?.delete === 'success';
  }

  async label(tracking: string): Promise<CarrierLabel | null> {
    const pdf = await carrierPdf(NAME, this.url('get/order/label', { tracking }), this.call('GET'));
    return pdf ? { pdf } : null;
  }

  parseWebhook(): CarrierEvent[] {
    // Ecotrack documents no webhook: nothing it could send can be verified.
    throw new WebhookUnverifiable();
  }
}
