import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

export const DELIVERY_TYPES = ['home', 'desk', 'pickup'] as const;
export type DeliveryType = (typeof DELIVERY_TYPES)[number];
/** Minor units per delivery type; null (or absent) = not delivered that way. */
export type StateRates = Partial<Record<DeliveryType, number | null>>;
/** Country (ISO 3166-1 alpha-2) → state code → rates. */
export type PriceTable = Record<string, Record<string, StateRates>>;

export const PRICE_STATUSES = ['draft', 'published'] as const;
export const METHOD_STATUSES = ['draft', 'published', 'archived'] as const;
export const METHOD_POLICIES = ['private', 'public'] as const;

@Entity({ tableName: 'shipping_prices' })
export class ShippingPrice {
  [OptionalProps]?: 'id' | 'logoUrl' | 'status' | 'prices' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('shp');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', nullable: true })
  logoUrl: string | null = null;

  /** ISO 4217; the table's amounts are minor units of it. */
  @Property({ type: 'string' })
  currency!: string;

  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'json' })
  prices: PriceTable = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'shipping_methods' })
export class ShippingMethod {
  [OptionalProps]?: 'id' | 'description' | 'logoUrl' | 'price' | 'shippingPriceId' | 'status' | 'policy' | 'sourceId' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('shm');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'string', nullable: true })
  logoUrl: string | null = null;

  /** Flat rate in minor units of the store's currency, used when no price table is linked. */
  @Property({ type: moneyColumn() })
  price: number = 0;

  @Property({ type: 'string', nullable: true })
  shippingPriceId: string | null = null;

  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'string' })
  policy: string = 'private';

  /** The method this one was forked from. */
  @Property({ type: 'string', nullable: true })
  sourceId: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
