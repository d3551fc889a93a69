import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

@Entity({ tableName: 'warehouses' })
export class Warehouse {
  [OptionalProps]?: 'id' | 'email' | 'address' | 'active' | 'isDefault' | 'metadata' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('whs');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  /** Unique per store. */
  @Property({ type: 'string' })
  code!: string;

  @Property({ type: 'string', nullable: true })
  email: string | null = null;

  /** Free-form, at most 2 KiB of JSON. */
  @Property({ type: 'json', nullable: true })
  address: Record<string, unknown> | null = null;

  @Property({ type: 'boolean' })
  active: boolean = true;

  /** Orders take and give back stock here; the first warehouse of a store starts as its default. */
  @Property({ type: 'boolean' })
  isDefault: boolean = false;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** Stock of one product in one warehouse; written only by stock.service with row locks. */
@Entity({ tableName: 'inventory_levels' })
export class InventoryLevel {
  @PrimaryKey({ type: 'string' })
  warehouseId!: string;

  @PrimaryKey({ type: 'string' })
  productId!: string;

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'integer' })
  onHand!: number;

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** The ledger: every stock change, with why (`order`, `purchase_order`, `adjustment`) and what caused it. */
@Entity({ tableName: 'inventory_movements' })
export class InventoryMovement {
  @PrimaryKey({ type: 'string' })
  id: string = newId('ine');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  productId!: string;

  @Property({ type: 'string', nullable: true })
  warehouseId: string | null = null;

  @Property({ type: 'integer' })
  delta!: number;

  @Property({ type: 'string' })
  reason!: string;

  @Property({ type: 'string', nullable: true })
  refId: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
