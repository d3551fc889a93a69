import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/**
 * A supplier the store buys from. A purchase order created from one copies its contact fields
 * into the order's own `supplier` block, so later edits or deletion never rewrite an order.
 */
@Entity({ tableName: 'suppliers' })
export class SupplierRecord {
  [OptionalProps]?: 'id' | 'code' | 'email' | 'phone' | 'taxId' | 'address' | 'paymentTerms' | 'notes' | 'metadata' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('sup');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', nullable: true })
  code: string | null = null;

  @Property({ type: 'string', nullable: true })
  email: string | null = null;

  @Property({ type: 'string', nullable: true })
  phone: string | null = null;

  @Property({ type: 'string', nullable: true })
  taxId: string | null = null;

  /** Free-form, at most 2 KiB of JSON. */
  @Property({ type: 'json', nullable: true })
  address: Record<string, unknown> | null = null;

  @Property({ type: 'string', nullable: true })
  paymentTerms: string | null = null;

  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  /** Free-form, at most 2 KiB of JSON. */
  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
