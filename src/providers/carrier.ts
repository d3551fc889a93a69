/**
 * What Souk needs of a delivery carrier: Yalidine, Ecotrack, Procolis (ZR Express), Noest, Zimou
 * Express and EcoManager implement it, and the integration's `provider` picks one.
 * Amounts here are whole dinars (the carriers' own unit); the domain converts.
 */

/** Remaining request quota the carrier reported on its last answer (null: not reported). */
export interface CarrierQuota {
  second: number | null;
  minute: number | null;
  hour: number | null;
  day: number | null;
}

export interface CarrierWilaya {
  code: number;
  name: string;
  deliverable: boolean;
}

export interface CarrierStopDesk {
  id: string;
  name: string;
  address: string | null;
  communeId: string;
}

export interface CarrierCommune {
  id: string;
  name: string;
  wilayaCode: number;
  deliverable: boolean;
  stopDesks: CarrierStopDesk[];
}

export interface CarrierCommuneFee {
  communeId: string;
  home: number | null;
  stopDesk: number | null;
}

export interface CarrierFees {
  communes: CarrierCommuneFee[];
  /** Per kilogram above the included weight. */
  oversizeFeePerKg: number;
  includedWeightKg: number;
}

/** One wilaya's fees, for carriers that price by wilaya rather than by commune. */
export interface CarrierWilayaFee {
  wilayaCode: number;
  home: number | null;
  stopDesk: number | null;
}

export interface CarrierParcelRequest {
  /** The Souk order id: the carrier's `order_id`, so a retried call finds what an earlier one created. */
  orderId: string;
  firstName: string;
  lastName: string;
  phone: string;
  address: string;
  fromWilaya: CarrierWilaya;
  toWilaya: CarrierWilaya;
  communeName: string;
  productList: string;
  /** Cash to collect on delivery. */
  codAmount: number;
  stopDeskId: string | null;
}

/** A parcel as the carrier knows it. */
export interface CarrierParcelState {
  orderId: string | null;
  tracking: string;
  labelUrl: string | null;
  /** The carrier's own status text, and its Souk status (null: not one Souk follows). */
  rawStatus: string | null;
  status: string | null;
  occurredAt: Date | null;
  deliveryFee: number | null;
  paymentStatus: string | null;
}

export type CreateOutcome = { ok: true; parcel: CarrierParcelState } | { ok: false; message: string };

/** One verified event of a webhook batch. */
export interface CarrierEvent {
  eventId: string;
  type: string;
  occurredAt: Date | null;
  tracking: string | null;
  orderId: string | null;
  rawStatus: string | null;
  status: string | null;
  reason: string | null;
  paymentStatus: string | null;
  labelUrl: string | null;
}

/** A parcel's label: a link the carrier serves, or the PDF it answered with. */
export type CarrierLabel = { url: string } | { pdf: Buffer };

export interface CarrierAdapter {
  readonly provider: string;
  /**
   * Whether `track({orderIds})` finds a parcel by Souk's order id. Without it a creation whose
   * answer was lost cannot be told apart from one that never happened, so it is never retried.
   */
  readonly findsByOrderId: boolean;
  /** A cheap authenticated call: proves the credentials and reads the quota. */
  test(): Promise<{ latencyMs: number; quota: CarrierQuota | null }>;
  wilayas(): Promise<CarrierWilaya[]>;
  /** Communes with their stop desks; all of them without a wilaya. */
  communes(wilayaCode?: number): Promise<CarrierCommune[]>;
  fees(fromWilaya: number, toWilaya: number): Promise<CarrierFees>;
  /** Fees to every wilaya in one call, for carriers that publish a table; absent: asked wilaya by wilaya. */
  wilayaFees?(fromWilaya: number): Promise<CarrierWilayaFee[]>;
  /** Creates parcels in one call; the answer is keyed by order id. */
  create(parcels: CarrierParcelRequest[]): Promise<Map<string, CreateOutcome>>;
  /** Current state of parcels, by tracking number or by order id. */
  track(query: { trackings?: string[]; orderIds?: string[] }): Promise<CarrierParcelState[]>;
  /** Cancels a parcel the carrier has not picked up yet; false when it refuses. */
  cancel(tracking: string): Promise<boolean>;
  /** The parcel's label; null when the carrier has no label API or no label for it. */
  label(tracking: string): Promise<CarrierLabel | null>;
  /** Verifies the signature over the raw body and returns its events; throws WebhookUnverifiable. */
  parseWebhook(headers: Record<string, string | string[] | undefined>, raw: Buffer, secret: string): CarrierEvent[];
}

/**
 * A failed carrier call, by what the caller should do: `auth` (our credentials were refused),
 * `rate_limited` (retry after `retryAfter` seconds), `unavailable` (5xx, timeout, network: the
 * outcome of a write is unknown), `rejected` (the carrier refused the request itself).
 */
export class CarrierError extends Error {
  constructor(
    readonly kind: 'auth' | 'rate_limited' | 'unavailable' | 'rejected',
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'CarrierError';
  }
}

/** The refusal of a carrier that has no such API, so that the route says so. */
export class CarrierUnsupported extends Error {}

/** A webhook that cannot be verified; the ingress answers every such case identically. */
export class WebhookUnverifiable extends Error {}

/** A webhook whose signature holds but whose body is not the carrier's shape. */
export class WebhookMalformed extends Error {}
