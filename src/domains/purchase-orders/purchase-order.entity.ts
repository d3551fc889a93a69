import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

export interface Supplier {
  name: string;
  email: string | null;
  phone: string | null;
  /** Free-form, at most 2 KiB of JSON. */
  address: Record<string, unknown> | null;
  taxId: string | null;
}

@Entity({ tableName: 'purchase_orders' })
export class PurchaseOrder {
  [OptionalProps]?:
    | 'id' | 'status' | 'supplierId' | 'warehouseId' | 'shippingCost' | 'tax' | 'reference' | 'notes' | 'expectedAt' | 'sentAt' | 'receivedAt' | 'cancelledAt'
    | 'cancelReason' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('po');

  @Property({ type: 'string' })
  storeId!: string;

  /** Per store, from 1; shown as PO-000042. */
  @Property({ type: 'integer' })
  number!: number;

  /** `draft`, `sent`, `partial`, `received` or `cancelled`. */
  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'json' })
  supplier!: Supplier;

  /** The supplier record the `supplier` block was copied from, if any. */
  @Property({ type: 'string', nullable: true })
  supplierId: string | null = null;

  @Property({ type: 'string', nullable: true })
  warehouseId: string | null = null;

  /** ISO 4217; every amount of the PO is in its minor units. */
  @Property({ type: 'string' })
  currency!: string;

  @Property({ type: moneyColumn() })
  subtotal!: number;

  @Property({ type: moneyColumn() })
  shippingCost: number = 0;

  /** An amount, not a rate. */
  @Property({ type: moneyColumn() })
  tax: number = 0;

  @Property({ type: moneyColumn() })
  total!: number;

  @Property({ type: 'string', nullable: true })
  reference: string | null = null;

  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  @Property({ type: 'Date', nullable: true })
  expectedAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  sentAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  receivedAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  cancelledAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  cancelReason: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'purchase_order_items' })
export class PurchaseOrderItem {
  [OptionalProps]?: 'id' | 'productId' | 'sku' | 'qtyReceived';

  @PrimaryKey({ type: 'string' })
  id: string = newId('poi');

  @Property({ type: 'string' })
  purchaseOrderId!: string;

  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'string', nullable: true })
  productId: string | null = null;

  @Property({ type: 'string', nullable: true })
  sku: string | null = null;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'integer' })
  qtyOrdered!: number;

  @Property({ type: 'integer' })
  qtyReceived: number = 0;

  @Property({ type: moneyColumn() })
  unitCost!: number;

  @Property({ type: moneyColumn() })
  lineTotal!: number;
}

export interface ReceiptLine {
  itemId: string;
  quantity: number;
}

@Entity({ tableName: 'purchase_order_receipts' })
export class PurchaseOrderReceipt {
  [OptionalProps]?: 'id' | 'at';

  @PrimaryKey({ type: 'string' })
  id: string = newId('por');

  @Property({ type: 'string' })
  purchaseOrderId!: string;

  @Property({ type: 'string', nullable: true })
  warehouseId!: string | null;

  @Property({ type: 'json' })
  items!: ReceiptLine[];

  @Property({ type: 'Date' })
  at: Date = new Date();
}

/** One mailing of the PO's PDF: queued in the request, settled by the durable send job. */
@Entity({ tableName: 'purchase_order_sends' })
export class PurchaseOrderSend {
  [OptionalProps]?: 'id' | 'cc' | 'subject' | 'message' | 'status' | 'error' | 'at' | 'finishedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('pos');

  @Property({ type: 'string' })
  purchaseOrderId!: string;

  @Property({ type: 'string[]' })
  recipients!: string[];

  @Property({ type: 'string[]' })
  cc: string[] = [];

  @Property({ type: 'string', nullable: true })
  subject: string | null = null;

  @Property({ type: 'text', nullable: true })
  message: string | null = null;

  /** `queued`, `sent` or `failed`. */
  @Property({ type: 'string' })
  status: string = 'queued';

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'Date' })
  at: Date = new Date();

  @Property({ type: 'Date', nullable: true })
  finishedAt: Date | null = null;
}

/** PO-000042: the per-store number as people read it. */
export const formatPoNumber = (n: number) => `PO-${String(n).padStart(6, '0')}`;
