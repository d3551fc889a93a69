import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

@Entity({ tableName: 'products' })
export class Product {
  [OptionalProps]?: 'id' | 'status' | 'metadata' | 'sku' | 'allowBackorder' | 'description' | 'compareAtPrice' | 'photoUrl' | 'images' | 'createdAt' | 'updatedAt';

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

  /** What shoppers read about it (plain text or Markdown, shown by the storefront as it likes). */
  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** The price before a reduction, shown struck through; minor units. */
  @Property({ type: moneyColumn(), nullable: true })
  compareAtPrice: number | null = null;

  @Property({ type: 'string', nullable: true })
  photoUrl: string | null = null;

  /** Further image URLs, in display order. */
  @Property({ type: 'json' })
  images: string[] = [];

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
