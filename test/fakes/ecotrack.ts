/**
 * A local Ecotrack tenant (API v1, as its Postman collection documents it): a bearer token
 * (`api_token` in the query for get/orders/status), Laravel validation answers, orders created
 * in batches keyed by `reference`, Laravel-paged order lists, status keys, PDF labels and the
 * X-RateLimit headers.
 */
import { randomBytes } from 'node:crypto';
import { CarrierFake, fold, WILAYAS, type FakeRequest } from './carrier-fake.js';

export interface EcotrackOrder {
  tracking: string;
  reference: string | null;
  client: string;
  phone: string;
  adresse: string;
  commune: string;
  wilaya_id: number;
  montant: string;
  tarif_prestation: string;
  type_id: number;
  stop_desk: number;
  created_at: string;
  status: string;
  products: string | null;
  activity: Array<{ date: string; time: string; status: string; station: string }>;
}

/** Wilayas this tenant does not serve (absent from its get/wilayas). */
const UNSERVED = new Set([50, 54]);
const PAGE = 40;

/** "YYYY-MM-DD" and "HH:MM:SS" in Algiers time (UTC+1). */
function localParts(d: Date): { date: string; time: string } {
  const iso = new Date(d.getTime() + 3600_000).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

export class FakeEcotrack extends CarrierFake {
  token = 'eco-token-0123456789abcdefghij';
  orders = new Map<string, EcotrackOrder>();

  homeFee = (w: number) => (w === 16 ? 400 : 600 + 100 * (w % 4));

  ordersOf(reference: string): EcotrackOrder[] {
    return [...this.orders.values()].filter((o) => o.reference === reference);
  }

  /** Moves an order to a status key, as the courier's staff would. */
  advance(tracking: string, status: string, at = new Date()): void {
    const o = this.orders.get(tracking);
    if (!o) throw new Error(`no order ${tracking}`);
    o.status = status;
    o.activity.push({ ...localParts(at), status, station: 'HUB' });
  }

  protected route(r: FakeRequest): boolean {
    const path = r.path.replace(/^\/api\/v1\//, '');
    if (path === r.path) return false;
    // get/orders/status authenticates with api_token in the query; every other call with the bearer token.
    const token = path === 'get/orders/status' ? r.query.get('api_token') : /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
    if (token !== this.token) {
      this.json(r.res, 401, { message: 'Unauthenticated.' });
      return true;
    }
    const rate = { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '49', 'x-ratelimit-remaining-hour': '1499', 'x-ratelimit-remaining-day': '14999' };
    const ok = (body: unknown) => this.json(r.res, 200, body, rate);
    const q = r.query;
    if (r.method === 'GET' && path === 'get/wilayas') {
      ok(WILAYAS.filter(([c]) => !UNSERVED.has(c)).map(([c, n]) => ({ wilaya_id: c, wilaya_name: n })));
      return true;
    }
    if (r.method === 'GET' && path === 'get/communes') {
      const w = q.get('wilaya_id');
      const rows = this.communes.filter((c) => !w || String(c.wilaya) === w).map((c) => ({ nom: c.name, wilaya_id: c.wilaya, code_postal: c.code, has_stop_desk: c.desk ? 1 : 0 }));
      ok(Object.fromEntries(rows.map((row, i) => [String(i), row])));
      return true;
    }
    if (r.method === 'GET' && path === 'get/fees') {
      const rows = (extra: number) =>
        WILAYAS.filter(([c]) => !UNSERVED.has(c)).map(([c]) => ({ wilaya_id: c, tarif: String(this.homeFee(c) + extra), tarif_stopdesk: String(this.homeFee(c) + extra - 200) }));
      ok({ livraison: rows(0), pickup: rows(100), echange: rows(200), recouvrement: rows(-100), retours: rows(-200) });
      return true;
    }
    if (r.method === 'POST' && path === 'create/orders') {
      const orders = (r.body as { orders?: unknown })?.orders;
      if (!orders || typeof orders !== 'object' || Array.isArray(orders)) {
        this.json(r.res, 422, { message: 'The given data was invalid.', errors: { orders: ['Le champ orders est obligatoire.'] } });
        return true;
      }
      const results: Record<string, unknown> = {};
      for (const [index, raw] of Object.entries(orders as Record<string, Record<string, any>>)) {
        const key = raw.reference ? String(raw.reference) : index;
        const errors: Record<string, string[]> = {};
        const wilaya = Number(raw.code_wilaya);
        const commune = this.communes.find((c) => c.wilaya === wilaya && fold(c.name) === fold(String(raw.commune ?? '')));
        if (!raw.nom_client) errors.nom_client = ['Le champ nom client est obligatoire.'];
        if (!/^\d{9,10}$/.test(String(raw.telephone ?? ''))) errors.telephone = ['Le champ téléphone doit avoir entre 9 et 10 chiffres.'];
        if (!raw.adresse) errors.adresse = ['Le champ adresse est obligatoire.'];
        if (!Number.isInteger(wilaya) || wilaya < 1 || wilaya > 58) errors.code_wilaya = ['Le champ code wilaya doit être entre 1 et 58.'];
        if (!commune) errors.commune = ['La commune sélectionnée est invalide.'];
        if (typeof raw.montant !== 'number' && !/^\d+(\.\d+)?$/.test(String(raw.montant ?? ''))) errors.montant = ['Le champ montant doit être un nombre.'];
        if (![1, 2, 3, 4].includes(Number(raw.type))) errors.type = ['Le champ type est invalide.'];
        if (Object.keys(errors).length) {
          results[key] = errors;
          continue;
        }
        if (UNSERVED.has(wilaya)) {
          results[key] = { success: false, error: 10002, message: 'Pas de livraison pour la wilaya sélectionnée' };
          continue;
        }
        if (Number(raw.stop_desk) === 1 && !(commune!.desk && String(raw.code_postal) === commune!.code)) {
          results[key] = { code_postal: ['Pas de stop desk pour ce code postal.'] };
          continue;
        }
        const tracking = `ECO${randomBytes(5).toString('hex').toUpperCase()}`;
        const now = new Date();
        this.orders.set(tracking, {
          tracking,
          reference: raw.reference ? String(raw.reference) : null,
          client: String(raw.nom_client),
          phone: String(raw.telephone),
          adresse: String(raw.adresse),
          commune: commune!.name,
          wilaya_id: wilaya,
          montant: String(raw.montant),
          tarif_prestation: String(Number(raw.stop_desk) === 1 ? this.homeFee(wilaya) - 200 : this.homeFee(wilaya)),
          type_id: Number(raw.type),
          stop_desk: Number(raw.stop_desk) === 1 ? 1 : 0,
          created_at: now.toISOString().slice(0, 10),
          status: 'prete_a_expedier',
          products: raw.produit ? String(raw.produit) : null,
          activity: [{ ...localParts(now), status: 'order_information_received_by_carrier', station: '' }],
        });
        results[key] = { success: true, tracking };
      }
      if (this.drop(r)) return true;
      ok({ results });
      return true;
    }
    if (r.method === 'GET' && path === 'get/orders') {
      const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
      const since = q.get('start_date') ?? '0000-00-00';
      const rows = [...this.orders.values()].filter((o) => o.created_at >= since).reverse();
      const last = Math.max(1, Math.ceil(rows.length / PAGE));
      ok({
        current_page: page,
        data: rows.slice((page - 1) * PAGE, page * PAGE).map(({ activity: _a, stop_desk: _s, ...o }) => o),
        last_page: last,
        per_page: PAGE,
        total: rows.length,
      });
      return true;
    }
    if (r.method === 'GET' && path === 'get/orders/status') {
      const wanted = (q.get('trackings') ?? '').split(',').filter(Boolean);
      if (wanted.length > 100) {
        this.json(r.res, 422, { message: 'The given data was invalid.', errors: { trackings: ['100 trackings au maximum.'] } });
        return true;
      }
      const data: Record<string, unknown> = {};
      for (const t of wanted) {
        const o = this.orders.get(t);
        if (o) data[t] = { status: o.status, order_id: o.reference, activity: o.activity.map((a) => ({ reason: '', details: a.status, station: a.station, driver: '', date: a.date, time: a.time, postponed_to: null })) };
      }
      ok({ data });
      return true;
    }
    if (r.method === 'DELETE' && path === 'delete/order') {
      const o = this.orders.get(q.get('tracking') ?? '');
      if (o && o.status === 'prete_a_expedier') {
        this.orders.delete(o.tracking);
        ok({ success: true, message: 'Commande supprimée' });
      } else ok({ success: false, error: 10001, message: 'Commande non modifiable' });
      return true;
    }
    if (r.method === 'GET' && path === 'get/order/label') {
      if (!this.orders.has(q.get('tracking') ?? '')) this.json(r.res, 422, { message: 'The given data was invalid.', errors: { tracking: ['Le tracking sélectionné est invalide.'] } });
      else this.pdf(r.res);
      return true;
    }
    return false;
  }
}

export const startFakeEcotrack = () => new FakeEcotrack().start();
