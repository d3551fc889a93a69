import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, ArrayMinSize, IsEmail, IsInt, IsOptional, Length, Max, Min, ValidateNested } from 'class-validator';
import { BatchFailure, BatchInput, BatchSummary, MAX_BATCH_IDS } from '../../lib/batch.js';
import { graphqlEnum } from '../../core/enums.js';
import { NameText } from '../../core/input.js';

export const PO_STATUSES = ['draft', 'sent', 'partial', 'received', 'cancelled'] as const;
export const PO_TARGETS = ['received', 'partial', 'sent', 'draft'] as const;
export const PurchaseOrderStatus = graphqlEnum('PurchaseOrderStatus', PO_STATUSES);
export const PurchaseOrderTarget = graphqlEnum('PurchaseOrderTarget', PO_TARGETS, 'The statuses a purchase order may be set to (cancel has its own route).');
export const MAX_PO_ITEMS = 500;

@ObjectType('Supplier')
export class SupplierType {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => String, { nullable: true })
  phone!: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free-form, at most 2 KiB.' })
  address!: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  taxId!: string | null;
}

@ObjectType('PurchaseOrderItem')
export class PurchaseOrderItemType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: 'Receiving adds to this product; sku-only items move no stock.' })
  productId!: string | null;

  @Field(() => String, { nullable: true })
  sku!: string | null;

  @Field(() => String)
  name!: string;

  @Field(() => Int)
  qtyOrdered!: number;

  @Field(() => Int)
  qtyReceived!: number;

  @Field(() => Float)
  unitCost!: number;

  @Field(() => Float, { description: 'qtyOrdered x unitCost.' })
  lineTotal!: number;
}

@ObjectType('PurchaseOrderReceiptItem')
export class ReceiptItemType {
  @Field(() => ID)
  itemId!: string;

  @Field(() => Int)
  quantity!: number;
}

@ObjectType('PurchaseOrderReceipt')
export class ReceiptType {
  @Field(() => ID)
  id!: string;

  @Field(() => GraphQLISODateTime)
  at!: string;

  @Field(() => ID, { nullable: true })
  warehouseId!: string | null;

  @Field(() => [ReceiptItemType])
  items!: ReceiptItemType[];
}

@ObjectType('PurchaseOrderSend')
export class SendType {
  @Field(() => ID)
  id!: string;

  @Field(() => GraphQLISODateTime)
  at!: string;

  @Field(() => String, { description: 'The recipients, comma-separated.' })
  to!: string;

  @Field(() => String, { description: 'queued, sent or failed.' })
  status!: string;

  @Field(() => String, { nullable: true })
  error!: string | null;
}

@ObjectType('PurchaseOrder')
export class PurchaseOrderType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'PO-000042, per store.' })
  number!: string;

  @Field(() => PurchaseOrderStatus)
  status!: string;

  @Field(() => SupplierType)
  supplier!: SupplierType;

  @Field(() => ID, { nullable: true, description: 'The supplier record the order was created from, if any.' })
  supplierId!: string | null;

  @Field(() => ID, { nullable: true })
  warehouseId!: string | null;

  @Field(() => String)
  currency!: string;

  @Field(() => [PurchaseOrderItemType])
  items!: PurchaseOrderItemType[];

  @Field(() => Float)
  subtotal!: number;

  @Field(() => Float)
  shippingCost!: number;

  @Field(() => Float, { description: 'An amount.' })
  tax!: number;

  @Field(() => Float, { description: 'subtotal + shippingCost + tax.' })
  total!: number;

  @Field(() => String, { nullable: true })
  reference!: string | null;

  @Field(() => String, { nullable: true })
  notes!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  expectedAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  sentAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  receivedAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  cancelledAt!: string | null;

  @Field(() => String, { nullable: true })
  cancelReason!: string | null;

  @Field(() => [ReceiptType])
  receipts!: ReceiptType[];

  @Field(() => [SendType])
  sends!: SendType[];

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class PurchaseOrderPage {
  @Field(() => [PurchaseOrderType])
  data!: PurchaseOrderType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class SupplierInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  email?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  phone?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  address?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  taxId?: string | null;
}

@InputType()
export class PurchaseOrderItemInput {
  @Field(() => ID, { nullable: true, description: "A product of the store; name and sku default to the product's." })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  sku?: string | null;

  @Field(() => String, { nullable: true, description: 'Required without a productId.' })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => Int)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1_000_000, { message: 'must be at most 1000000' })
  qtyOrdered!: number;

  @Field(() => Float, { description: '0 or more, in the PO currency.' })
  unitCost!: number;
}

@InputType()
export class PurchaseOrderCreateInput {
  @Field(() => SupplierInput, { nullable: true, description: 'Required without a supplierId.' })
  @IsOptional()
  @ValidateNested()
  supplier?: SupplierInput | null;

  @Field(() => ID, { nullable: true, description: 'A supplier of the store: the supplier block is copied from it (instead of supplier).' })
  @IsOptional()
  supplierId?: string | null;

  @Field(() => ID, { nullable: true, description: 'Where receipts go by default.' })
  @IsOptional()
  warehouseId?: string | null;

  @Field(() => String, { nullable: true, description: "ISO 4217; default the store's currency." })
  @IsOptional()
  currency?: string | null;

  @Field(() => [PurchaseOrderItemInput], { description: '1 to 500 items.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 item' })
  @ArrayMaxSize(MAX_PO_ITEMS, { message: `must hold at most ${MAX_PO_ITEMS} items` })
  @ValidateNested({ each: true })
  items!: PurchaseOrderItemInput[];

  @Field(() => Float, { nullable: true })
  @IsOptional()
  shippingCost?: number | null;

  @Field(() => Float, { nullable: true, description: 'An amount.' })
  @IsOptional()
  tax?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 200, { message: 'must be at most 200 characters' })
  reference?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 5000, { message: 'must be at most 5000 characters' })
  notes?: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  @IsOptional()
  expectedAt?: Date | null;
}

@InputType()
export class PurchaseOrderUpdateInput {
  @Field(() => SupplierInput, { nullable: true, description: 'Replaces the supplier block.' })
  @IsOptional()
  @ValidateNested()
  supplier?: SupplierInput | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  warehouseId?: string | null;

  @Field(() => String, { nullable: true, description: 'Draft only.' })
  @IsOptional()
  currency?: string | null;

  @Field(() => [PurchaseOrderItemInput], { nullable: true, description: 'Draft only; replaces every item.' })
  @IsOptional()
  @ArrayMinSize(1, { message: 'must hold at least 1 item' })
  @ArrayMaxSize(MAX_PO_ITEMS, { message: `must hold at most ${MAX_PO_ITEMS} items` })
  @ValidateNested({ each: true })
  items?: PurchaseOrderItemInput[] | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  shippingCost?: number | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  tax?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 200, { message: 'must be at most 200 characters' })
  reference?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 5000, { message: 'must be at most 5000 characters' })
  notes?: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  @IsOptional()
  expectedAt?: Date | null;
}

@InputType()
export class ReceiptItemInput {
  @Field(() => ID)
  itemId!: string;

  @Field(() => Int)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1_000_000, { message: 'must be at most 1000000' })
  quantity!: number;
}

@InputType()
export class PurchaseOrderStatusInput {
  @Field(() => PurchaseOrderTarget)
  status!: string;

  @Field(() => [ReceiptItemInput], { nullable: true, description: 'Receiving: these quantities; omitted: everything outstanding.' })
  @IsOptional()
  @ArrayMinSize(1, { message: 'must hold at least 1 item' })
  @ArrayMaxSize(MAX_PO_ITEMS, { message: `must hold at most ${MAX_PO_ITEMS} items` })
  @ValidateNested({ each: true })
  items?: ReceiptItemInput[] | null;

  @Field(() => ID, { nullable: true, description: "Receiving: an active warehouse of the store; default the PO's, then the store's default." })
  @IsOptional()
  warehouseId?: string | null;
}

@InputType()
export class PurchaseOrderCancelInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 1000, { message: 'must be at most 1000 characters' })
  reason?: string | null;
}

@InputType()
export class PurchaseOrderSendInput {
  @Field(() => [String], { nullable: true, description: "One address or a list; default the supplier's email." })
  @IsOptional()
  @ArrayMaxSize(20, { message: 'must hold at most 20 addresses' })
  @IsEmail({}, { each: true, message: 'must be an email address' })
  to?: string[] | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(20, { message: 'must hold at most 20 addresses' })
  @IsEmail({}, { each: true, message: 'must be an email address' })
  cc?: string[] | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 300, { message: 'must be 1 to 300 characters' })
  subject?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 10000, { message: 'must be at most 10000 characters' })
  message?: string | null;
}

@InputType()
export class PurchaseOrderBatchCancelInput extends BatchInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 1000, { message: 'must be at most 1000 characters' })
  reason?: string | null;
}

@InputType()
export class PurchaseOrderBatchSendInput extends BatchInput {}

@InputType()
export class PurchaseOrderIdsInput {
  @Field(() => [ID], { description: '1 to 100 ids.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 id' })
  @ArrayMaxSize(MAX_BATCH_IDS, { message: `must hold at most ${MAX_BATCH_IDS} ids` })
  ids!: string[];
}

@ObjectType()
export class PurchaseOrderBatchResult {
  @Field(() => [PurchaseOrderType])
  resources!: PurchaseOrderType[];

  @Field(() => [BatchFailure])
  failures!: BatchFailure[];

  @Field(() => BatchSummary)
  summary!: BatchSummary;

  @Field(() => Boolean, { description: 'returnPartialSuccess was false and something failed: nothing changed.' })
  aborted!: boolean;
}

@ObjectType()
export class PdfFile {
  @Field(() => String)
  filename!: string;

  @Field(() => String, { description: 'application/pdf' })
  contentType!: string;

  @Field(() => String, { description: 'A strong ETag of the bytes.' })
  etag!: string;

  @Field(() => String, { description: 'inline, or attachment when asked to download.' })
  disposition!: string;

  @Field(() => String, { description: 'The PDF bytes, base64.' })
  content!: string;
}
