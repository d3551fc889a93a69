/**
 * A local Noest Express (its API specification v2.1): `api_token` (and `user_guid` on writes)
 * with every call, orders created as drafts and then validated, deletable only before, tracking
 * answered keyed by tracking with OrderInfo and activity events, the fee table under
 * `tarifs.delivery`, and PDF labels.
 */
import { randomBytes } from 'node:crypto';
import { CarrierFake, fold, WILAYAS, type FakeRequest } from './carrier-fake.js';

export interface NoestOrder {
  tracking: string;
  reference: string;
  client: string;
  phone: string;
  adresse: string;
  wilaya_id: number;
  commune: string;
  montant: string;
  produit: string;
  stop_desk: number;
  station_code: string | null;
  validated: boolean;
  activity: Array<{ event_key: string; event: string; causer: string; date: string }>;
}

const UNSERVED = new Set([50, 54]);
const EVENT_TEXT: Record<string, string> = {
  upload: 'Uploadé sur le système',
  customer_validation: 'Validé',
  validation_collect_colis: 'Colis Ramassé',
  fdr_activated: 'En livraison',
  livre: 'Livré',
  verssement_admin_cust: 'Montant transmis au partenaire',
  validation_reception_cash_by_partener: 'Montant reçu par le partenaire',
  return_asked_by_hub: 'Retour En transit',
};

const stamp = (d: Date) => new Date(d.getTime() + 3600_000).toISOString().slice(0, 19).replace('T', ' ');

export class FakeNoest extends CarrierFake {
  token = 'noest-token-0123456789abcdefghij';
  guid = 'GUID7Q2X';
  orders = new Map<string, NoestOrder>();
  /** Validations to refuse ({success: false}). */
  refuseValidations = 0;

  ordersOf(reference: string): NoestOrder[] {
    return [...this.orders.values()].filter((o) => o.reference === reference);
  }

  advance(tracking: string, eventKey: string, at = new Date()): void {
    const o = this.orders.get(tracking);
    if (!o) throw new Error(`no order ${tracking}`);
    o.activity.push({ event_key: eventKey, event: EVENT_TEXT[eventKey] ?? eventKey, causer: 'NOEST', date: stamp(at) });
  }

  protected route(r: FakeRequest): boolean {
    const path = r.path.replace(/^\/api\/public\//, '');
    if (path === r.path) return false;
    const body = (r.body ?? {}) as Record<string, any>;
    const token = r.method === 'GET' ? r.query.get('api_token') : body.api_token;
    if (token !== this.token || (r.method === 'POST' && body.user_guid !== this.guid)) {
      this.json(r.res, 401, { message: 'Unauthenticated.' });
      return true;
    }
    if (r.method === 'GET' && path === 'get/wilayas') {
      this.json(r.res, 200, WILAYAS.map(([c, n]) => ({ code: c, nom: n, is_active: UNSERVED.has(c) ? 0 : 1 })));
      return true;
    }
    const communes = /^get\/communes\/(\d+)$/.exec(path);
    if (r.method === 'GET' && communes) {
      this.json(r.res, 200, this.communes.filter((c) => c.wilaya === Number(communes[1])).map((c) => ({ nom: c.name, wilaya_id: c.wilaya, code_postal: c.code, is_active: 1 })));
      return true;
    }
    if (r.method === 'GET' && path === 'fees') {
      if (r.query.get('user_guid') !== this.guid) {
        this.json(r.res, 401, { message: 'Unauthenticated.' });
        return true;
      }
      const delivery = Object.fromEntries(WILAYAS.filter(([c]) => !UNSERVED.has(c)).map(([c]) => [String(c), { wilaya_id: c, tarif: String(c === 16 ? 450 : 750), tarif_stopdesk: String(c === 16 ? 350 : 550) }]));
      this.json(r.res, 200, { tarifs: { delivery, return: {} } });
      return true;
    }
    if (r.method === 'POST' && path === 'create/order') {
      const errors: Record<string, string[]> = {};
      if (!body.client) errors.client = ['Le champ client est obligatoire.'];
      if (!/^\d{9,10}$/.test(String(body.phone ?? ''))) errors.phone = ['Le champ phone doit avoir entre 9 et 10 chiffres.'];
      if (!body.adresse) errors.adresse = ['Le champ adresse est obligatoire.'];
      if (!body.produit) errors.produit = ['Le champ produit est obligatoire.'];
      if (![1, 2, 3].includes(Number(body.type_id))) errors.type_id = ['Le champ type id est invalide.'];
      const wilaya = Number(body.wilaya_id);
      if (!this.communes.some((c) => c.wilaya === wilaya && fold(c.name) === fold(String(body.commune ?? '')))) errors.commune = ['La commune est invalide.'];
      if (Object.keys(errors).length) {
        this.json(r.res, 422, { message: 'The given data was invalid.', errors });
        return true;
      }
      const tracking = `NST${randomBytes(5).toString('hex').toUpperCase()}`;
      this.orders.set(tracking, {
        tracking,
        reference: String(body.reference ?? ''),
        client: String(body.client),
        phone: String(body.phone),
        adresse: String(body.adresse),
        wilaya_id: wilaya,
        commune: String(body.commune),
        montant: Number(body.montant).toFixed(2),
        produit: String(body.produit),
        stop_desk: Number(body.stop_desk) === 1 ? 1 : 0,
        station_code: body.station_code ? String(body.station_code) : null,
        validated: false,
        activity: [{ event_key: 'upload', event: EVENT_TEXT.upload, causer: 'PARTENAIRE', date: stamp(new Date()) }],
      });
      if (this.drop(r)) return true;
      this.json(r.res, 200, { success: true, tracking });
      return true;
    }
    if (r.method === 'POST' && (path === 'valid/order' || path === 'delete/order')) {
      const o = this.orders.get(String(body.tracking ?? ''));
      if (!o || o.validated) {
        this.json(r.res, 200, { success: false, message: 'Commande introuvable ou déjà validée' });
        return true;
      }
      if (path === 'delete/order') this.orders.delete(o.tracking);
      else if (this.refuseValidations > 0) {
        this.refuseValidations--;
        this.json(r.res, 200, { success: false, message: 'Validation impossible' });
        return true;
      } else {
        o.validated = true;
        o.activity.push({ event_key: 'customer_validation', event: EVENT_TEXT.customer_validation, causer: 'PARTENAIRE', date: stamp(new Date()) });
      }
      this.json(r.res, 200, { success: true });
      return true;
    }
    if (r.method === 'POST' && path === 'get/trackings/info') {
      const wanted: string[] = Array.isArray(body.trackings) ? body.trackings.map(String) : [];
      const found = wanted.map((t) => this.orders.get(t)).filter((o): o is NoestOrder => !!o);
      if (!found.length) {
        this.json(r.res, 200, { message: 'Trackings non trouvés' });
        return true;
      }
      this.json(
        r.res,
        200,
        Object.fromEntries(
          found.map((o) => [
            o.tracking,
            {
              OrderInfo: { tracking: o.tracking, reference: o.reference, client: o.client, phone: o.phone, phone_2: null, adresse: o.adresse, wilaya_id: o.wilaya_id, commune: o.commune, montant: o.montant, remarque: '', produit: o.produit, type_id: 1, created_at: new Date().toISOString() },
              recipientName: o.client,
              shippedBy: 'BOUTIQUE TEST',
              originCity: 16,
              destLocationCity: o.wilaya_id,
              activity: o.activity.map((a) => ({ ...a, 'badge-class': 'badge-success', by: '', name: '', driver: '', fdr: '' })),
            },
          ]),
        ),
      );
      return true;
    }
    if (r.method === 'GET' && path === 'get/order/label') {
      if (!this.orders.has(r.query.get('tracking') ?? '')) this.json(r.res, 404, { message: 'Commande introuvable' });
      else this.pdf(r.res);
      return true;
    }
    return false;
  }
}

export const startFakeNoest = () => new FakeNoest().start();
