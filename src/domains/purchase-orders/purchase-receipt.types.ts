import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsInt, IsOptional, Length, Max, Min, ValidateNested } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { MAX_PO_ITEMS } from './purchase-order.types.js';

export const RECEIPT_STATUSES = ['draft', 'posted', 'voided'] as const;
export const PurchaseReceiptStatus = graphqlEnum('PurchaseReceiptStatus', RECEIPT_STATUSES);

@ObjectType('PurchaseReceiptLine')
export class PurchaseReceiptLineType {
  @Field(() => Int, { description: 'From 1, in the order given.' })
  lineNo!: number;

  @Field(() => ID, { description: 'The purchase order item received.' })
  itemId!: string;

  @Field(() => Int, { description: "The item's 0-based position in the purchase order." })
  poLineIndex!: number;

  @Field(() => ID, { nullable: true })
  productId!: string | null;

  @Field(() => String, { nullable: true })
  sku!: string | null;

  @Field(() => Int)
  qtyReceived!: number;

  @Field(() => Float, { description: "In the purchase order's currency." })
  unitCost!: number;

  @Field(() => Float, { description: 'qtyReceived x unitCost.' })
  lineTotal!: number;
}

@ObjectType('PurchaseReceipt', { description: 'Goods received against a purchase order: a draft until posted, when its lines are received into the warehouse.' })
export class PurchaseReceiptType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID)
  purchaseOrderId!: string;

  @Field(() => ID, { nullable: true })
  supplierId!: string | null;

  @Field(() => ID, { nullable: true, description: "Where posting receives; default the order's, then the store's default warehouse." })
  warehouseId!: string | null;

  @Field(() => PurchaseReceiptStatus)
  status!: string;

  @Field(() => String, { nullable: true })
  reference!: string | null;

  @Field(() => String, { nullable: true })
  notes!: string | null;

  @Field(() => String)
  currency!: string;

  @Field(() => Float, { description: 'Σ lineTotal.' })
  totalCost!: number;

  @Field(() => [PurchaseReceiptLineType])
  lines!: PurchaseReceiptLineType[];

  @Field(() => GraphQLISODateTime)
  receivedAt!: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  postedAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  voidedAt!: string | null;

  @Field(() => ID, { nullable: true, description: "The purchase order's receipt that posting wrote." })
  poReceiptId!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class PurchaseReceiptPage {
  @Field(() => [PurchaseReceiptType])
  data!: PurchaseReceiptType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class PurchaseReceiptLineInput {
  @Field(() => ID, { nullable: true, description: 'The purchase order item; or poLineIndex, or a productId or sku that names one item.' })
  @IsOptional()
  itemId?: string | null;

  @Field(() => Int, { nullable: true, description: "The item's 0-based position in the purchase order." })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  poLineIndex?: number | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  sku?: string | null;

  @Field(() => Int)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1_000_000, { message: 'must be at most 1000000' })
  qtyReceived!: number;

  @Field(() => Float, { nullable: true, description: "0 or more in the order's currency; default the item's unit cost." })
  @IsOptional()
  unitCost?: number | null;
}

@InputType()
export class PurchaseReceiptCreateInput {
  @Field(() => ID)
  purchaseOrderId!: string;

  @Field(() => ID, { nullable: true, description: "A supplier of the store; default the order's." })
  @IsOptional()
  supplierId?: string | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  warehouseId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 200, { message: 'must be at most 200 characters' })
  reference?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 5000, { message: 'must be at most 5000 characters' })
  notes?: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Default now.' })
  @IsOptional()
  receivedAt?: Date | null;

  @Field(() => [PurchaseReceiptLineInput], { description: '1 to 500 lines.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 line' })
  @ArrayMaxSize(MAX_PO_ITEMS, { message: `must hold at most ${MAX_PO_ITEMS} lines` })
  @ValidateNested({ each: true })
  lines!: PurchaseReceiptLineInput[];
}
