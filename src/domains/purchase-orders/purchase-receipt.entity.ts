import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

/** A line of a receipt: a quantity of one item of the purchase order. */
export interface PurchaseReceiptLineRow {
  itemId: string;
  /** The item's 0-based position in the order. */
  position: number;
  productId: string | null;
  sku: string | null;
  qtyReceived: number;
  /** Minor units of the order's currency. */
  unitCost: number;
}

/**
 * A goods receipt against a purchase order: a draft until posted; posting receives its lines
 * through the order's receiving (the PO receipt it wrote is `poReceiptId`).
 */
@Entity({ tableName: 'purchase_receipts' })
export class PurchaseReceipt {
  [OptionalProps]?: 'id' | 'status' | 'supplierId' | 'warehouseId' | 'reference' | 'notes' | 'postedAt' | 'voidedAt' | 'poReceiptId' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('prc');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  purchaseOrderId!: string;

  @Property({ type: 'string', nullable: true })
  supplierId: string | null = null;

  @Property({ type: 'string', nullable: true })
  warehouseId: string | null = null;

  /** `draft`, `posted` or `voided`. */
  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'string', nullable: true })
  reference: string | null = null;

  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  @Property({ type: 'json' })
  lines!: PurchaseReceiptLineRow[];

  @Property({ type: 'string' })
  currency!: string;

  @Property({ type: moneyColumn() })
  totalCost!: number;

  @Property({ type: 'Date' })
  receivedAt!: Date;

  @Property({ type: 'Date', nullable: true })
  postedAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  voidedAt: Date | null = null;

  @Property({ type: 'string', nullable: true })
  poReceiptId: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
