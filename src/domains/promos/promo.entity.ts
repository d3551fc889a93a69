import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

@Entity({ tableName: 'promos' })
export class Promo {
  [OptionalProps]?:
    | 'id' | 'value' | 'minSubtotal' | 'maxUses' | 'uses' | 'maxUsesPerCustomer' | 'productIds' | 'startsAt' | 'endsAt' | 'active' | 'createdAt'
    | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('promo');

  @Property({ type: 'string' })
  storeId!: string;

  /** Upper-cased, unique per store. */
  @Property({ type: 'string' })
  code!: string;

  /** `percentage`, `fixed` or `free_shipping`. */
  @Property({ type: 'string' })
  type!: string;

  /** A percent for `percentage` (10 = 10 %), minor units of the store currency for `fixed`, 0 otherwise. */
  @Property({ type: 'double' })
  value: number = 0;

  /** Minor units; null: no minimum. */
  @Property({ type: moneyColumn(), nullable: true })
  minSubtotal: number | null = null;

  @Property({ type: 'integer', nullable: true })
  maxUses: number | null = null;

  /** Orders that redeemed it; only the conditional UPDATE in promo.service raises it. */
  @Property({ type: 'integer' })
  uses: number = 0;

  @Property({ type: 'integer', nullable: true })
  maxUsesPerCustomer: number | null = null;

  /** Empty: every product. */
  @Property({ type: 'json' })
  productIds: string[] = [];

  @Property({ type: 'Date', nullable: true })
  startsAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  endsAt: Date | null = null;

  @Property({ type: 'boolean' })
  active: boolean = true;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
