/**
 * Yalidine's parcel status texts (French, as its API and webhooks spell them) and the Souk
 * parcel status each one means. Matching ignores case and accents ("Echèc" and "Échec" agree).
 */
const TABLE: Record<string, readonly string[]> = {
  pending: ['Pas encore expédié', 'A vérifier', 'En préparation', 'Pas encore ramassé', 'Prêt à expédier'],
  picked_up: ['Ramassé'],
  in_transit: ['Transfert', 'Expédié', 'Centre', 'Vers Wilaya', 'Reçu à Wilaya', 'En localisation', 'Débloqué'],
  out_for_delivery: ['Sorti en livraison'],
  on_hold: ['En attente du client', 'En attente', 'En alerte', 'Alerte résolue', 'Bloqué', 'Tentative échouée'],
  delivered: ['Livré'],
  failed: ['Echèc livraison', 'Echange échoué'],
  returning: ['Retour vers centre', 'Retourné au centre', 'Retour transfert', 'Retour groupé', 'Retour à retirer', 'Retour vers vendeur'],
  returned: ['Retourné au vendeur'],
};

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();

const BY_TEXT = new Map<string, string>(Object.entries(TABLE).flatMap(([status, texts]) => texts.map((t) => [fold(t), status] as const)));

/** The Souk status of a Yalidine status text; null for a text Souk does not follow. */
export function soukStatus(raw: string | null | undefined): string | null {
  return raw ? (BY_TEXT.get(fold(raw)) ?? null) : null;
}

/** Yalidine's payment states of a parcel's cash, in Souk's spelling. */
export function paymentStatusOf(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw) return null;
  const s = raw.toLowerCase();
  return s === 'payed' || s === 'paid' ? 'paid' : s.replace(/-/g, '_');
}

/** The status text Yalidine gives a parcel it just created. */
export const CREATED_STATUS = 'En préparation';
