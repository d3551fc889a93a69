import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

export interface ParcelHistoryEntry {
  status: string;
  rawStatus: string | null;
  reason: string | null;
  occurredAt: string;
  /** `send`, `webhook`, `poll` or `cancel`. */
  source: string;
}

/** Who the parcel goes to, fixed when it is sent. */
export interface ParcelRecipient {
  name: string;
  phone: string;
  address: string | null;
  wilayaCode: string;
  communeId: string | null;
  communeName: string | null;
}

/** A shipment of an order with a carrier (CONTRACT-2 §13). */
@Entity({ tableName: 'parcels' })
export class Parcel {
  [OptionalProps]?:
    | 'id' | 'tracking' | 'rawStatus' | 'labelUrl' | 'stopDeskId' | 'deliveryFee' | 'paymentStatus' | 'history' | 'lastEventAt'
    | 'claimedUntil' | 'createdAt' | 'updatedAt' | 'checkedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('pcl');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  orderId!: string;

  @Property({ type: 'string' })
  provider!: string;

  @Property({ type: 'string', nullable: true })
  tracking: string | null = null;

  /** creating|pending|picked_up|in_transit|out_for_delivery|on_hold|delivered|failed|returning|returned|cancelled */
  @Property({ type: 'string' })
  status!: string;

  /** The carrier's own status text. */
  @Property({ type: 'string', nullable: true })
  rawStatus: string | null = null;

  @Property({ type: 'string', nullable: true })
  labelUrl: string | null = null;

  /** `home` or `stopdesk`. */
  @Property({ type: 'string' })
  deliveryType!: string;

  @Property({ type: 'string', nullable: true })
  stopDeskId: string | null = null;

  @Property({ type: 'json' })
  recipient!: ParcelRecipient;

  /** Cash to collect, minor units of `currency`. */
  @Property({ type: moneyColumn() })
  codAmount!: number;

  @Property({ type: moneyColumn(), nullable: true })
  deliveryFee: number | null = null;

  @Property({ type: 'string' })
  currency!: string;

  /** The carrier's remittance state of the cash: not_ready, ready, receivable, paid. */
  @Property({ type: 'string', nullable: true })
  paymentStatus: string | null = null;

  @Property({ type: 'json' })
  history: ParcelHistoryEntry[] = [];

  /** When the newest provider news applied happened (its `occurred_at`): older news is stale. */
  @Property({ type: 'Date', nullable: true })
  lastEventAt: Date | null = null;

  /** Last time the carrier told us anything (event or poll); quiet parcels are polled. */
  @Property({ type: 'Date' })
  checkedAt: Date = new Date();

  /** While a creation call for this parcel is in flight, no other may start (a double click). */
  @Property({ type: 'Date', nullable: true })
  claimedUntil: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** The store's end of the carrier's webhook: Yalidine's secret for it and whether it is on. */
@Entity({ tableName: 'carrier_webhooks' })
export class CarrierWebhook {
  [OptionalProps]?: 'active' | 'secretEnc' | 'lastEventAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  storeId!: string;

  @Property({ type: 'boolean' })
  active: boolean = true;

  @Property({ type: 'string', nullable: true, hidden: true })
  secretEnc: string | null = null;

  @Property({ type: 'Date', nullable: true })
  lastEventAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
