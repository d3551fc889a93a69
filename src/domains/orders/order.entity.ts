import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

export interface OrderItem {
  productId: string | null;
  name: string;
  quantity: number;
  /** Minor units of the order's currency. */
  price: number;
}

export interface ShippingAddress {
  country: string;
  address: string | null;
  communeId: string | null;
  communeName: string | null;
  wilayaCode: string | null;
}

export interface OrderRisk {
  /** 0 (nothing known against it) to 100. */
  score: number;
  reasons: Array<{ code: string; detail: string }>;
}

export interface Fulfillment {
  parcelId: string | null;
  tracking: string | null;
  status: string | null;
  labelUrl: string | null;
}

@Entity({ tableName: 'orders' })
export class Order {
  [OptionalProps]?:
    | 'id' | 'customerPhone' | 'rejectReason' | 'metadata' | 'createdAt' | 'updatedAt' | 'currency' | 'shippingAddress' | 'shippingMethodId'
    | 'shippingType' | 'shippingCost' | 'promoCode' | 'discount' | 'fulfillment' | 'paymentStatus' | 'paymentMethod' | 'confirmedAt'
    | 'landingPageId' | 'paymentTokenHash' | 'amountPaid' | 'source' | 'customerIp' | 'customerEmail' | 'note' | 'risk';

  @PrimaryKey({ type: 'string' })
  id: string = newId('ord');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  customerName!: string;

  @Property({ type: 'string', nullable: true })
  customerPhone: string | null = null;

  @Property({ type: 'string', nullable: true })
  customerEmail: string | null = null;

  /** Where the order came from: `api` (a member or an app), `storefront` (a shopper without an account). */
  @Property({ type: 'string' })
  source: string = 'api';

  /** The buyer's address of a storefront order (CONTRACT-3 §17.7). */
  @Property({ type: 'string', nullable: true })
  customerIp: string | null = null;

  /** The shopper's note to the merchant. */
  @Property({ type: 'text', nullable: true })
  note: string | null = null;

  /** A storefront order's risk score, from the store's own history of its phone and address. */
  @Property({ type: 'json', nullable: true })
  risk: OrderRisk | null = null;

  @Property({ type: 'json' })
  items!: OrderItem[];

  /** Items + shippingCost − discount, minor units. */
  @Property({ type: moneyColumn() })
  total!: number;

  @Property({ type: 'string' })
  currency: string = 'DZD';

  @Property({ type: 'json', nullable: true })
  shippingAddress: ShippingAddress | null = null;

  @Property({ type: 'string', nullable: true })
  shippingMethodId: string | null = null;

  /** `home`, `desk` or `pickup`. */
  @Property({ type: 'string', nullable: true })
  shippingType: string | null = null;

  @Property({ type: moneyColumn() })
  shippingCost: number = 0;

  @Property({ type: 'string', nullable: true })
  promoCode: string | null = null;

  @Property({ type: moneyColumn() })
  discount: number = 0;

  @Property({ type: 'json', nullable: true })
  fulfillment: Fulfillment | null = null;

  /** `unpaid`, `pending`, `partially_paid`, `paid`, `partially_refunded` or `refunded` (order.money.ts). */
  @Property({ type: 'string' })
  paymentStatus: string = 'unpaid';

  /** What the order's payments collected, minor units (the payment domain reports it; see order.money.ts). */
  @Property({ type: moneyColumn() })
  amountPaid: number = 0;

  @Property({ type: 'string', nullable: true })
  paymentMethod: string | null = null;

  /** Set on the first move to a `confirmed` or `fulfilled` kind, never cleared. */
  @Property({ type: 'Date', nullable: true })
  confirmedAt: Date | null = null;

  @Property({ type: 'string', nullable: true })
  landingPageId: string | null = null;

  /** SHA-256 of the order's payment token (shown once, in the create response). */
  @Property({ type: 'string', nullable: true, hidden: true })
  paymentTokenHash: string | null = null;

  @Property({ type: 'string' })
  statusId!: string;

  /** The slug of the order's status, kept beside its id for filtering and payloads. */
  @Property({ type: 'string' })
  status!: string;

  @Property({ type: 'string', nullable: true })
  rejectReason: string | null = null;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'order_statuses' })
export class OrderStatus {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('sts');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string' })
  slug!: string;

  @Property({ type: 'string' })
  color!: string;

  @Property({ type: 'integer' })
  position!: number;

  /** `new`, `confirmed`, `rejected`, `fulfilled`, `cancelled`, `returned` or `other`. */
  @Property({ type: 'string' })
  kind!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
