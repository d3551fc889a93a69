import {
  CarrierError,
  CarrierUnsupported,
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
import { algiersTime, carrierJson, dinars, fold, text, type CarrierCall } from '../carrier-http.js';
import { wilayaName } from '../wilayas.js';

const NAME = 'Procolis';
const CHUNK = 100;

/** ZR Express's `Situation` texts that the sources name, and the Souk status and cash state of each. */
const SITUATIONS: Record<string, { status: string; payment?: string }> = {
  'en preparation': { status: 'pending' },
  'en traitement - pret a expedie': { status: 'pending' },
  livree: { status: 'delivered', payment: 'not_ready' },
  'livree [ encaisser ]': { status: 'delivered', payment: 'receivable' },
  'retour de dispatche': { status: 'returning' },
  'retour stock': { status: 'returned' },
  supprimee: { status: 'cancelled' },
};

export function procolisStatus(raw: string | null): { status: string | null; payment: string | null } {
  const s = raw ? SITUATIONS[fold(raw).replace(/\s+/g, ' ')] : undefined;
  return { status: s?.status ?? null, payment: s?.payment ?? null };
}

const CREATED_SITUATION = 'En Préparation';

export interface ProcolisOptions {
  baseUrl: string;
  /** The `token` header. */
  token: string;
  /** The `key` header. */
  key: string;
  timeoutMs?: number;
}

interface Colis {
  Tracking?: unknown;
  id_Externe?: unknown;
  Situation?: unknown;
  DateH_Action?: unknown;
  MessageRetour?: unknown;
}

/**
 * The Procolis API that ZR Express runs (`token` and `key` headers, PascalCase French fields,
 * every call a `{Colis: [...]}` batch). The tracking is ours to choose: Souk sends the order id,
 * so a second creation is refused as "Double Tracking" and `lire` finds a parcel by order.
 * Procolis has no label, cancellation or webhook API.
 */
export class ProcolisCarrier implements CarrierAdapter {
  readonly provider = 'procolis';
  readonly findsByOrderId = true;
  private readonly base: string;

  constructor(private readonly opts: ProcolisOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  private call<T>(method: CarrierCall['method'], path: string, json?: unknown): Promise<T> {
    return carrierJson<T>(NAME, new URL(`${this.base}/${path}`), { method, json, headers: { token: this.opts.token, key: this.opts.key }, timeoutMs: this.opts.timeoutMs });
  }

  async test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }> {
    const started = performance.now();
    const body = await this.call<{ Statut?: unknown }>('GET', 'token');
    if (fold(text(body?.Statut) ?? '') !== fold('Accès activé')) throw new CarrierError('auth', `${NAME}: the API access is not active (${text(body?.Statut) ?? 'no status'})`);
    return { latencyMs: Math.round(performance.now() - started), quota: null };
  }

  async wilayaFees(): Promise<CarrierWilayaFee[]> {
    const rows = await this.call<unknown>('POST', 'tarification', {});
    return (Array.isArray(rows) ? rows : [])
      .filter((r) => r && typeof r === 'object' && Number.isInteger(Number((r as { IDWilaya?: unknown }).IDWilaya)))
      .map((r: { IDWilaya?: unknown; Domicile?: unknown; Stopdesk?: unknown }) => ({ wilayaCode: Number(r.IDWilaya), home: dinars(r.Domicile), stopDesk: dinars(r.Stopdesk) }));
  }

  /** ZR Express publishes no wilaya list: the wilayas of its price table are the ones it serves. */
  async wilayas(): Promise<CarrierWilaya[]> {
    return (await this.wilayaFees()).map((r) => ({ code: r.wilayaCode, name: wilayaName(r.wilayaCode) ?? String(r.wilayaCode), deliverable: r.home !== null || r.stopDesk !== null }));
  }

  /** Procolis publishes no commune list (communes are sent by name). */
  async communes(): Promise<CarrierCommune[]> {
    return [];
  }

  /** Prices are per wilaya and communes are not listed, so no commune has a fee of its own. */
  async fees(): Promise<CarrierFees> {
    return { communes: [], oversizeFeePerKg: 0, includedWeightKg: 0 };
  }

  async create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>> {
    const out = new Map<string, CreateOutcome>();
    for (let i = 0; i < parcels.length; i += CHUNK) {
      const chunk = parcels.slice(i, i + CHUNK);
      const body = await this.call<{ Colis?: Colis[] }>('POST', 'add_colis', {
        Colis: chunk.map((p) => ({
          Tracking: p.orderId,
          TypeLivraison: p.stopDeskId !== null ? '1' : '0',
          TypeColis: '0',
          // Confirmed parcels go straight to "ready to ship".
          Confrimee: '1',
          Client: `${p.firstName} ${p.lastName}`.trim(),
          MobileA: p.phone,
          MobileB: '',
          Adresse: p.address,
          IDWilaya: String(p.toWilaya.code).padStart(2, '0'),
          Commune: p.communeName,
          Total: String(p.codAmount),
          Note: '',
          TProduit: p.productList,
          id_Externe: p.orderId,
          Source: 'Souk',
        })),
      });
      for (const c of Array.isArray(body?.Colis) ? body.Colis : []) {
        const orderId = text(c.Tracking) ?? text(c.id_Externe);
        if (!orderId || !chunk.some((p) => p.orderId === orderId)) continue;
        const message = text(c.MessageRetour) ?? '';
        // "Double Tracking": the parcel was made by an earlier call whose answer was lost.
        if (message === 'Good' || message === 'Double Tracking') {
          out.set(orderId, {
            ok: true,
            parcel: { orderId, tracking: orderId, labelUrl: null, rawStatus: CREATED_SITUATION, status: procolisStatus(CREATED_SITUATION).status, occurredAt: null, deliveryFee: null, paymentStatus: null },
          });
        } else out.set(orderId, { ok: false, message: (message || 'Procolis refused the parcel').slice(0, 300) });
      }
    }
    return out;
  }

  /** Trackings are order ids here, so both lookups are one `lire`. */
  async track(query: { trackings?: string[]; orderIds?: string[] }): Promise<CarrierParcelState[]> {
    const wanted = [...new Set([...(query.trackings ?? []), ...(query.orderIds ?? [])])];
    const out: CarrierParcelState[] = [];
    for (let i = 0; i < wanted.length; i += CHUNK) {
      // An unknown tracking is answered `null` or left out.
      const body = await this.call<{ Colis?: Colis[] } | null>('POST', 'lire', { Colis: wanted.slice(i, i + CHUNK).map((t) => ({ Tracking: t })) });
      for (const c of Array.isArray(body?.Colis) ? body.Colis : []) {
        const tracking = text(c?.Tracking);
        if (!tracking) continue;
        const raw = text(c.Situation);
        const { status, payment } = procolisStatus(raw);
        out.push({ orderId: text(c.id_Externe) ?? tracking, tracking, labelUrl: null, rawStatus: raw, status, occurredAt: algiersTime(c.DateH_Action), deliveryFee: null, paymentStatus: payment });
      }
    }
    return out;
  }

  async cancel(): Promise<boolean> {
    throw new CarrierUnsupported('Procolis (ZR Express) has no cancellation API: cancel the parcel in the ZR Express dashboard');
  }

  async label(): Promise<CarrierLabel | null> {
    throw new CarrierUnsupported('Procolis (ZR Express) has no label API: print the label from the ZR Express dashboard');
  }

  parseWebhook(): CarrierEvent[] {
    throw new WebhookUnverifiable();
  }
}
