/**
 * A local Procolis (ZR Express): `token` and `key` headers, `{Colis: [...]}` batches with
 * PascalCase fields, the per-wilaya price table, "Double Tracking" for a reused tracking, and
 * `lire` answering `null` when it knows none of the trackings.
 */
import { CarrierFake, fold, WILAYAS, type FakeRequest } from './carrier-fake.js';

export interface ProcolisColis {
  Tracking: string;
  TypeLivraison: string;
  Client: string;
  MobileA: string;
  Adresse: string;
  IDWilaya: string;
  Commune: string;
  Total: string;
  TProduit: string;
  id_Externe: string;
  Situation: string;
  DateH_Action: string;
}

/** Wilayas ZR Express does not price (so does not serve). */
const UNSERVED = new Set([50, 54, 56]);

export class FakeProcolis extends CarrierFake {
  token = 'zr-token-0123456789abcdef0123456789';
  key = 'zr-key-0123456789abcdef';
  colis = new Map<string, ProcolisColis>();

  advance(tracking: string, situation: string, at = new Date()): void {
    const c = this.colis.get(tracking);
    if (!c) throw new Error(`no colis ${tracking}`);
    c.Situation = situation;
    c.DateH_Action = new Date(at.getTime() + 3600_000).toISOString().slice(0, 19).replace('T', ' ');
  }

  protected route(r: FakeRequest): boolean {
    const path = r.path.replace(/^\/api_v1\//, '');
    if (path === r.path) return false;
    if (r.headers.token !== this.token || r.headers.key !== this.key) {
      this.json(r.res, 401, { Statut: 'Accès refusé' });
      return true;
    }
    if (r.method === 'GET' && path === 'token') {
      this.json(r.res, 200, { Statut: 'Accès activé' });
      return true;
    }
    if (r.method === 'POST' && path === 'tarification') {
      this.json(
        r.res,
        200,
        WILAYAS.filter(([c]) => !UNSERVED.has(c) && c <= 58).map(([c, n]) => ({ IDWilaya: c, Wilaya: n, Domicile: String(c === 16 ? 400 : 700), Stopdesk: String(c === 16 ? 300 : 500), Annuler: '200' })),
      );
      return true;
    }
    const batch = (r.body as { Colis?: unknown })?.Colis;
    if (r.method === 'POST' && path === 'add_colis' && Array.isArray(batch)) {
      const out = batch.map((raw: Record<string, any>) => {
        const tracking = String(raw.Tracking ?? '');
        const answer = (MessageRetour: string) => ({ ...raw, MessageRetour });
        if (!tracking) return answer('Tracking obligatoire');
        if (this.colis.has(tracking)) return answer('Double Tracking');
        const wilaya = Number(raw.IDWilaya);
        if (UNSERVED.has(wilaya) || !WILAYAS.some(([c]) => c === wilaya)) return answer('Wilaya non reconnue');
        if (!this.communes.some((c) => c.wilaya === wilaya && fold(c.name) === fold(String(raw.Commune ?? '')))) return answer('Commune non reconnue');
        if (!raw.Client || !raw.MobileA || !raw.TProduit) return answer('Champs obligatoires manquants');
        this.colis.set(tracking, {
          Tracking: tracking,
          TypeLivraison: String(raw.TypeLivraison),
          Client: String(raw.Client),
          MobileA: String(raw.MobileA),
          Adresse: String(raw.Adresse),
          IDWilaya: String(raw.IDWilaya),
          Commune: String(raw.Commune),
          Total: String(raw.Total),
          TProduit: String(raw.TProduit),
          id_Externe: String(raw.id_Externe ?? ''),
          Situation: 'En Préparation',
          DateH_Action: new Date(Date.now() + 3600_000).toISOString().slice(0, 19).replace('T', ' '),
        });
        return answer('Good');
      });
      if (this.drop(r)) return true;
      this.json(r.res, 200, { Colis: out });
      return true;
    }
    if (r.method === 'POST' && path === 'lire' && Array.isArray(batch)) {
      const found = batch.map((b: { Tracking?: unknown }) => this.colis.get(String(b.Tracking))).filter(Boolean);
      this.json(r.res, 200, found.length ? { Colis: found } : null);
      return true;
    }
    return false;
  }
}

export const startFakeProcolis = () => new FakeProcolis().start();
