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
import { algiersTime, carrierJson, carrierPdf, createEach, dinars, refusalMessage, text, type CarrierCall } from '../carrier-http.js';
import { wilayaName } from '../wilayas.js';

const NAME = 'Noest';
const CHUNK = 100;

/**
 * Noest's activity event keys (its API specification's list) and the Souk parcel status each
 * means; keys not listed (pick-ups, exchanges, edits) change no status.
 */
const EVENTS: Record<string, string> = {
  upload: 'pending',
  customer_validation: 'pending',
  validation_collect_colis: 'picked_up',
  validation_reception_admin: 'in_transit',
  validation_reception: 'in_transit',
  sent_to_redispatch: 'in_transit',
  return_redispatched_to_livraison: 'in_transit',
  fdr_activated: 'out_for_delivery',
  mise_a_jour: 'on_hold',
  nouvel_tentative_asked_by_customer: 'on_hold',
  colis_suspendu: 'on_hold',
  livre: 'delivered',
  livred: 'delivered',
  return_asked_by_customer: 'returning',
  return_asked_by_hub: 'returning',
  retour_dispatched_to_partenaires: 'returning',
  return_dispatched_to_partenaire: 'returning',
  colis_retour_transmit_to_partner: 'returning',
  return_dispatched_to_warehouse: 'returning',
  livraison_echoue_recu: 'returned',
  return_validated_by_partener: 'returned',
};

/** The cash events: Noest sent the collected amount, and the merchant confirmed receiving it. */
const CASH_EVENTS: Record<string, string> = {
  verssement_admin_cust: 'ready',
  validation_reception_cash_by_partener: 'paid',
};

export const noestStatus = (key: string | null): string | null => (key ? (EVENTS[key.trim()] ?? null) : null);

export interface NoestOptions {
  baseUrl: string;
  apiToken: string;
  userGuid: string;
  timeoutMs?: number;
}

interface Activity {
  event_key?: unknown;
  event?: unknown;
  date?: unknown;
}

/**
 * The Noest Express public API (its specification v2.1): `api_token` and `user_guid` with every
 * call, an order created as a draft and then validated (the logistics company sees it only
 * then), tracking by batches of trackings, PDF labels. Noest cannot be asked for an order by
 * its reference, and pushes nothing.
 */
export class NoestCarrier implements CarrierAdapter {
  readonly provider = 'noest';
  readonly findsByOrderId = false;
  private readonly base: string;

  constructor(private readonly opts: NoestOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  private url(path: string, query: Record<string, string> = {}): URL {
    const u = new URL(`${this.base}/api/public/${path}`);
    for (const [k, v] of Object.entries({ api_token: this.opts.apiToken, ...query })) u.searchParams.set(k, v);
    return u;
  }

  private call(method: CarrierCall['method'], json?: Record<string, unknown>): CarrierCall {
    return { method, json: json && { api_token: this.opts.apiToken, user_guid: this.opts.userGuid, ...json }, timeoutMs: this.opts.timeoutMs };
  }

  private get<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    return carrierJson<T>(NAME, this.url(path, query), this.call('GET'));
  }

  private post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return carrierJson<T>(NAME, new URL(`${this.base}/api/public/${path}`), this.call('POST', body));
  }

  async test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }> {
    const started = performance.now();
    await this.get('get/wilayas');
    return { latencyMs: Math.round(performance.now() - started), quota: null };
  }

  async wilayas(): Promise<CarrierWilaya[]> {
    const rows = await this.get<Array<{ code?: unknown; nom?: unknown; is_active?: unknown }>>('get/wilayas');
    return (Array.isArray(rows) ? rows : [])
      .filter((w) => Number.isInteger(Number(w?.code)))
      .map((w) => ({ code: Number(w.code), name: text(w.nom) ?? wilayaName(Number(w.code)) ?? String(w.code), deliverable: w.is_active === undefined || Number(w.is_active) === 1 }));
  }

  /** Noest names communes without ids or stop desks: the id is the wilaya and the name. */
  async communes(wilayaCode?: number): Promise<CarrierCommune[]> {
    const codes = wilayaCode ? [wilayaCode] : (await this.wilayas()).map((w) => w.code);
    const out: CarrierCommune[] = [];
    for (const code of codes) {
      const rows = await this.get<Array<{ nom?: unknown; is_active?: unknown }>>(`get/communes/${code}`);
      for (const c of Array.isArray(rows) ? rows : []) {
        const name = text(c?.nom);
        if (name) out.push({ id: `${code}-${name}`, name, wilayaCode: code, deliverable: c.is_active === undefined || Number(c.is_active) === 1, stopDesks: [] });
      }
    }
    return out;
  }

  async wilayaFees(): Promise<CarrierWilayaFee[]> {
    const body = await this.get<{ tarifs?: { delivery?: unknown } }>('fees', { user_guid: this.opts.userGuid });
    const rows = body?.tarifs?.delivery;
    return (rows && typeof rows === 'object' ? Object.values(rows) : [])
      .filter((r) => r && typeof r === 'object' && Number.isInteger(Number((r as { wilaya_id?: unknown }).wilaya_id)))
      .map((r: { wilaya_id?: unknown; tarif?: unknown; tarif_stopdesk?: unknown }) => ({ wilayaCode: Number(r.wilaya_id), home: dinars(r.tarif), stopDesk: dinars(r.tarif_stopdesk) }));
  }

  /** Noest prices by wilaya: every commune of the wilaya gets the wilaya's fees. */
  async fees(_fromWilaya: number, toWilaya: number): Promise<CarrierFees> {
    const [table, communes] = await Promise.all([this.wilayaFees(), this.communes(toWilaya)]);
    const row = table.find((r) => r.wilayaCode === toWilaya);
    return { communes: row ? communes.map((c) => ({ communeId: c.id, home: row.home, stopDesk: row.stopDesk })) : [], oversizeFeePerKg: 0, includedWeightKg: 0 };
  }

  /**
   * Create, then validate: a draft Noest never sees is no shipment. When validation is refused
   * the draft is deleted, so nothing is left behind.
   */
  create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>> {
    return createEach(parcels, async (p) => {
      const made = await this.post<{ success?: unknown; tracking?: unknown; message?: unknown }>('create/order', {
        reference: p.orderId,
        client: `${p.firstName} ${p.lastName}`.trim(),
        phone: p.phone,
        adresse: p.address,
        wilaya_id: p.toWilaya.code,
        commune: p.communeName,
        montant: p.codAmount,
        produit: p.productList,
        type_id: 1,
        poids: 1,
        stop_desk: p.stopDeskId !== null ? 1 : 0,
        ...(p.stopDeskId !== null ? { station_code: p.stopDeskId } : {}),
        stock: 0,
        can_open: 0,
      });
      const tracking = text(made?.tracking);
      if (made?.success !== true || !tracking) return { ok: false, message: refusalMessage(made) ?? 'Noest refused the parcel' };
      try {
        const valid = await this.post<{ success?: unknown }>('valid/order', { tracking });
        if (valid?.success !== true) throw new CarrierError('rejected', `${NAME}: ${refusalMessage(valid) ?? 'the parcel was not validated'}`);
      } catch (err) {
        // No answer: the parcel may be validated, so it is neither deleted nor claimed made.
        if (!(err instanceof CarrierError) || err.kind === 'unavailable') throw err;
        const deleted = await this.post<{ success?: unknown }>('delete/order', { tracking }).catch(() => null);
        if (deleted?.success !== true) throw new CarrierError('unavailable', `${NAME} made draft ${tracking} but neither validated nor deleted it`);
        return { ok: false, message: err.message };
      }
      return { ok: true, parcel: { orderId: p.orderId, tracking, labelUrl: null, rawStatus: 'customer_validation', status: 'pending', occurredAt: null, deliveryFee: null, paymentStatus: null } };
    });
  }

  async track(query: { trackings?: string[]; orderIds?: string[] }): Promise<CarrierParcelState[]> {
    const trackings = query.trackings ?? [];
    const out: CarrierParcelState[] = [];
    for (let i = 0; i < trackings.length; i += CHUNK) {
      // Unknown trackings are answered {message: ...} instead of a map.
      const body = await this.post<Record<string, unknown>>('get/trackings/info', { trackings: trackings.slice(i, i + CHUNK) });
      for (const [tracking, entry] of Object.entries(body ?? {})) {
        if (!entry || typeof entry !== 'object' || !trackings.includes(tracking)) continue;
        const e = entry as { OrderInfo?: { reference?: unknown }; activity?: Activity[] };
        const activity = Array.isArray(e.activity) ? e.activity : [];
        const last = [...activity].reverse().find((a) => noestStatus(text(a.event_key)) !== null);
        const cash = [...activity].reverse().find((a) => CASH_EVENTS[text(a.event_key) ?? ''] !== undefined);
        out.push({
          orderId: text(e.OrderInfo?.reference),
          tracking,
          labelUrl: null,
          rawStatus: last ? (text(last.event) ?? text(last.event_key)) : null,
          status: last ? noestStatus(text(last.event_key)) : null,
          occurredAt: last ? algiersTime(last.date) : null,
          deliveryFee: null,
          paymentStatus: cash ? CASH_EVENTS[text(cash.event_key)!] : null,
        });
      }
    }
    return out;
  }

  /** Noest deletes an order only before it is validated, and Souk validates at once: usually false. */
  async cancel(tracking: string): Promise<boolean> {
    const body = await this.post<{ success?: unknown }>('delete/order', { tracking }).catch((err: unknown) => {
      if (err instanceof CarrierError && err.kind === 'rejected') return null;
      throw err;
    });
    return body?.success === true;
  }

  async label(tracking: string): Promise<CarrierLabel | null> {
    const pdf = await carrierPdf(NAME, this.url('get/order/label', { tracking }), this.call('GET'));
    return pdf ? { pdf } : null;
  }

  parseWebhook(): CarrierEvent[] {
    throw new WebhookUnverifiable();
  }
}
