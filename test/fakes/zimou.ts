/**
 * A local Zimou Express (API v3): a bearer token, packages created one by one and answered
 * `{error, message, data}` (error 1 under HTTP 201 for a refusal), status keyed by tracking
 * code with status_id and status_name, one price row per wilaya and partner, PDF labels and
 * bulk deletion.
 */
import { randomBytes } from 'node:crypto';
import { CarrierFake, fold, WILAYAS, type FakeRequest } from './carrier-fake.js';

export interface ZimouPackage {
  id: number;
  tracking_code: string;
  order_id: string;
  client_first_name: string;
  client_last_name: string;
  client_phone: string;
  address: string;
  wilaya: string;
  commune: string;
  price: string;
  delivery_type: string;
  status_id: number;
  status_name: string;
  delivery_price: number;
  updated_at: string;
}

const NAMES: Record<number, string> = { 1: 'EN PREPARATION', 3: 'EXPEDIE', 7: 'SORTIE EN LIVRAISON', 8: 'LIVRÉ', 16: 'RETOUR VERS CENTRE', 20: 'RETOURNEE AU VENDEUR (SAC)' };

export class FakeZimou extends CarrierFake {
  token = '303193|zimou-token-0123456789abcdefghij';
  packages = new Map<string, ZimouPackage>();
  private seq = 1000;

  packagesOf(orderId: string): ZimouPackage[] {
    return [...this.packages.values()].filter((p) => p.order_id === orderId);
  }

  advance(tracking: string, statusId: number, at = new Date()): void {
    const p = this.packages.get(tracking);
    if (!p) throw new Error(`no package ${tracking}`);
    p.status_id = statusId;
    p.status_name = NAMES[statusId] ?? String(statusId);
    p.updated_at = at.toISOString();
  }

  protected route(r: FakeRequest): boolean {
    const path = r.path.replace(/^\/v3\//, '');
    if (path === r.path) return false;
    if (r.headers.authorization !== `Bearer ${this.token}`) {
      this.json(r.res, 401, { message: 'Unauthenticated.' });
      return true;
    }
    if (r.method === 'GET' && path === 'user') {
      this.json(r.res, 200, { data: { id: 303193, name: 'Boutique Test' } });
      return true;
    }
    if (r.method === 'GET' && path === 'my/prices') {
      const rows = WILAYAS.filter(([c]) => c <= 58).flatMap(([c]) => [
        { wilaya_id: c, partner_company_name: 'Yalidine', express_price: c === 16 ? 500 : 800, stopdesk_price: c === 16 ? 350 : 600 },
        { wilaya_id: c, partner_company_name: 'DHD', express_price: c === 16 ? 450 : 850, stopdesk_price: null },
      ]);
      this.json(r.res, 200, { data: rows });
      return true;
    }
    const body = (r.body ?? {}) as Record<string, any>;
    if (r.method === 'POST' && path === 'packages') {
      const wilaya = Number(body.wilaya);
      const refuse = (message: string) => this.json(r.res, 201, { error: 1, message, data: null });
      if (body.type !== 'ecommerce') return refuse('Le type est invalide'), true;
      if (!body.client_first_name || !body.client_phone || !body.name) return refuse('Champs obligatoires manquants'), true;
      if (!this.communes.some((c) => c.wilaya === wilaya && fold(c.name) === fold(String(body.commune ?? '')))) return refuse('Commune introuvable'), true;
      if (!['Express', 'Flexible', 'Point relais'].includes(body.delivery_type)) return refuse('Type de livraison invalide'), true;
      const tracking = `ZM-${randomBytes(4).toString('hex').toUpperCase()}`;
      const pkg: ZimouPackage = {
        id: ++this.seq,
        tracking_code: tracking,
        order_id: String(body.order_id ?? ''),
        client_first_name: String(body.client_first_name),
        client_last_name: String(body.client_last_name ?? ''),
        client_phone: String(body.client_phone),
        address: String(body.address ?? ''),
        wilaya: String(body.wilaya),
        commune: String(body.commune),
        price: String(body.price),
        delivery_type: String(body.delivery_type),
        status_id: 1,
        status_name: NAMES[1],
        delivery_price: wilaya === 16 ? 450 : 800,
        updated_at: new Date().toISOString(),
      };
      this.packages.set(tracking, pkg);
      if (this.drop(r)) return true;
      this.json(r.res, 201, { error: 0, message: 'Colis créé', data: pkg });
      return true;
    }
    if (r.method === 'GET' && path === 'packages/status') {
      const wanted = r.query.getAll('packages[]');
      this.json(r.res, 200, Object.fromEntries(wanted.filter((t) => this.packages.has(t)).map((t) => [t, this.packages.get(t)])));
      return true;
    }
    if (r.method === 'POST' && path === 'packages/labels') {
      const wanted: unknown[] = Array.isArray(body.packages) ? body.packages : [];
      if (!wanted.length || !wanted.every((t) => this.packages.has(String(t)))) this.json(r.res, 404, { message: 'Colis introuvable' });
      else this.pdf(r.res);
      return true;
    }
    if (r.method === 'DELETE' && path === 'packages/bulk') {
      const wanted: unknown[] = Array.isArray(body.tracking_codes) ? body.tracking_codes : [];
      const deletable = wanted.every((t) => this.packages.get(String(t))?.status_id === 1);
      if (deletable) for (const t of wanted) this.packages.delete(String(t));
      this.json(r.res, 200, { success: deletable });
      return true;
    }
    return false;
  }
}

export const startFakeZimou = () => new FakeZimou().start();
