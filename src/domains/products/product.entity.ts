import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

@Entity({ tableName: 'products' })
export class Product {
  [OptionalProps]?: 'id' | 'status' | 'metadata' | 'sku' | 'allowBackorder' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('prod');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string' })
  slug!: string;

  /** Minor units of the store's currency. */
  @Property({ type: moneyColumn() })
  price!: number;

  @Property({ type: 'string', nullable: true })
  sku: string | null = null;

  /** Orders may take stock below zero. */
  @Property({ type: 'boolean' })
  allowBackorder: boolean = false;

  @Property({ type: 'integer' })
  stock!: number;

  /** `draft`, `active` or `archived`. */
  @Property({ type: 'string' })
  status: string = 'active';

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
