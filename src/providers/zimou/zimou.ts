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

const NAME = 'Zimou Express';
const CHUNK = 100;

/** Zimou's package `status_id`s (steadier than their names) and the Souk parcel status of each. */
const STATUS_IDS: Record<number, string> = {
  ...Object.fromEntries([1, 2, 12, 26, 28, 33, 34, 35, 43, 44].map((id) => [id, 'pending'])),
  ...Object.fromEntries([3, 23].map((id) => [id, 'picked_up'])),
  ...Object.fromEntries([4, 5, 6, 21, 24, 25, 40, 112, 114, 115].map((id) => [id, 'in_transit'])),
  ...Object.fromEntries([7, 113].map((id) => [id, 'out_for_delivery'])),
  8: 'delivered',
  ...Object.fromEntries([9, 22, 118].map((id) => [id, 'failed'])),
  ...Object.fromEntries([10, 11, 13, 14, 15, 27, 32, 38, 83].map((id) => [id, 'on_hold'])),
  ...Object.fromEntries([16, 17, 18, 19, 116].map((id) => [id, 'returning'])),
  ...Object.fromEntries([20, 29, 37].map((id) => [id, 'returned'])),
  ...Object.fromEntries([30, 31, 41, 42, 45, 46].map((id) => [id, 'cancelled'])),
};

export const zimouStatus = (statusId: unknown): string | null => (Number.isInteger(Number(statusId)) ? (STATUS_IDS[Number(statusId)] ?? null) : null);

export interface ZimouOptions {
  baseUrl: string;
  apiToken: string;
  timeoutMs?: number;
}

interface Package {
  id?: unknown;
  tracking_code?: unknown;
  order_id?: unknown;
  status_id?: unknown;
  status_name?: unknown;
  delivery_price?: unknown;
  updated_at?: unknown;
}

/**
 * The Zimou Express API v3 (a delivery router that hands each package to a partner carrier):
 * a bearer token, packages created one by one, status by tracking codes, PDF labels. Zimou
 * cannot be asked for a package by Souk's order id, and prices by wilaya and partner.
 */
export class ZimouCarrier implements CarrierAdapter {
  readonly provider = 'zimou';
  readonly findsByOrderId = false;
  private readonly base: string;

  constructor(private readonly opts: ZimouOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  private call(method: CarrierCall['method'], json?: unknown): CarrierCall {
    return { method, json, headers: { authorization: `Bearer ${this.opts.apiToken}` }, timeoutMs: this.opts.timeoutMs };
  }

  private json<T>(method: CarrierCall['method'], path: string, body?: unknown, query?: URLSearchParams): Promise<T> {
    const u = new URL(`${this.base}/v3/${path}`);
    if (query) u.search = query.toString();
    return carrierJson<T>(NAME, u, this.call(method, body));
  }

  async test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }> {
    const started = performance.now();
    await this.json('GET', 'user');
    return { latencyMs: Math.round(performance.now() - started), quota: null };
  }

  /** One row per wilaya and partner carrier: a wilaya's fee is its lowest partner price. */
  async wilayaFees(): Promise<CarrierWilayaFee[]> {
    const body = await this.json<unknown>('GET', 'my/prices');
    const rows = Array.isArray(body) ? body : Array.isArray((body as { data?: unknown })?.data) ? (body as { data: unknown[] }).data : [];
    const byWilaya = new Map<number, CarrierWilayaFee>();
    for (const r of rows as Array<Record<string, unknown>>) {
      const code = Number(r?.wilaya_id ?? r?.wilaya);
      if (!Number.isInteger(code)) continue;
      const home = dinars(r.express_price ?? r.home_price ?? r.price);
      const desk = dinars(r.stopdesk_price ?? r.point_relais_price);
      const seen = byWilaya.get(code) ?? { wilayaCode: code, home: null, stopDesk: null };
      const low = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
      byWilaya.set(code, { wilayaCode: code, home: low(seen.home, home), stopDesk: low(seen.stopDesk, desk) });
    }
    return [...byWilaya.values()].sort((a, b) => a.wilayaCode - b.wilayaCode);
  }

  async wilayas(): Promise<CarrierWilaya[]> {
    return (await this.wilayaFees()).map((r) => ({ code: r.wilayaCode, name: wilayaName(r.wilayaCode) ?? String(r.wilayaCode), deliverable: r.home !== null || r.stopDesk !== null }));
  }

  /** Communes are sent to Zimou by name; Souk lists none. */
  async communes(): Promise<CarrierCommune[]> {
    return [];
  }

  async fees(): Promise<CarrierFees> {
    return { communes: [], oversizeFeePerKg: 0, includedWeightKg: 0 };
  }

  create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>> {
    return createEach(parcels, async (p) => {
      // Zimou answers a refusal with `error: 1`, even under HTTP 201.
      const body = await this.json<{ error?: unknown; message?: unknown; data?: Package }>('POST', 'packages', {
        type: 'ecommerce',
        name: p.productList,
        client_first_name: p.firstName,
        client_last_name: p.lastName,
        client_phone: p.phone,
        address: p.address,
        order_id: p.orderId,
        price: String(p.codAmount),
        // The order's total already holds the customer's shipping cost.
        free_delivery: 'true',
        delivery_type: p.stopDeskId !== null ? 'Point relais' : 'Express',
        wilaya: String(p.toWilaya.code),
        commune: p.communeName,
        can_be_opened: true,
        ...(p.stopDeskId !== null ? { office_id: p.stopDeskId } : {}),
      });
      const pkg = body?.data;
      const tracking = text(pkg?.tracking_code);
      if (Number(body?.error) === 1 || !tracking) return { ok: false, message: refusalMessage(body) ?? 'Zimou Express refused the package' };
      return {
        ok: true,
        parcel: { orderId: p.orderId, tracking, labelUrl: null, rawStatus: text(pkg!.status_name), status: zimouStatus(pkg!.status_id) ?? 'pending', occurredAt: null, deliveryFee: dinars(pkg!.delivery_price), paymentStatus: null },
      };
    });
  }

  async track(query: { trackings?: string[] }): Promise<CarrierParcelState[]> {
    const trackings = query.trackings ?? [];
    const out: CarrierParcelState[] = [];
    for (let i = 0; i < trackings.length; i += CHUNK) {
      const q = new URLSearchParams();
      for (const t of trackings.slice(i, i + CHUNK)) q.append('packages[]', t);
      const body = await this.json<Record<string, unknown>>('GET', 'packages/status', undefined, q);
      const map = (body?.data && typeof body.data === 'object' ? body.data : body) as Record<string, Package>;
      for (const tracking of trackings.slice(i, i + CHUNK)) {
        const pkg = map?.[tracking];
        if (!pkg || typeof pkg !== 'object') continue;
        out.push({
          orderId: text(pkg.order_id),
          tracking,
          labelUrl: null,
          rawStatus: text(pkg.status_name),
          status: zimouStatus(pkg.status_id),
          occurredAt: algiersTime(pkg.updated_at),
          deliveryFee: dinars(pkg.delivery_price),
          paymentStatus: null,
        });
      }
    }
    return out;
  }

  async cancel(tracking: string): Promise<boolean> {
    const body = await this.json<{ success?: unknown }>('DELETE', 'packages/bulk', { tracking_codes: [tracking] }).catch((err: unknown) => {
      if (err instanceof CarrierError && err.kind === 'rejected') return null;
      throw err;
    });
    return body?.success === true;
  }

  async label(tracking: string): Promise<CarrierLabel | null> {
    const pdf = await carrierPdf(NAME, new URL(`${this.base}/v3/packages/labels`), this.call('POST', { packages: [tracking] }));
    return pdf ? { pdf } : null;
  }

  parseWebhook(): CarrierEvent[] {
    throw new WebhookUnverifiable();
  }
}
