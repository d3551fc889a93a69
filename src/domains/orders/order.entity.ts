import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export interface OrderItem {
  productId: string | null;
  name: string;
  quantity: number;
  price: number;
}

@Entity({ tableName: 'orders' })
export class Order {
  [OptionalProps]?: 'id' | 'customerPhone' | 'rejectReason' | 'metadata' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('ord');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  customerName!: string;

  @Property({ type: 'string', nullable: true })
  customerPhone: string | null = null;

  @Property({ type: 'json' })
  items!: OrderItem[];

  @Property({ type: 'double' })
  total!: number;

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

  /** `new`, `confirmed`, `rejected`, `fulfilled`, `cancelled` or `other`. */
  @Property({ type: 'string' })
  kind!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
