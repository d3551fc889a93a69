import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, ArrayMinSize, IsEmail, IsInt, IsOptional, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { BatchFailure, BatchInput, BatchSummary } from '../../lib/batch.js';
import { NameText } from '../../core/input.js';

export const WAREHOUSE_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

@ObjectType('Warehouse')
export class WarehouseType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Unique per store.' })
  code!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free-form, at most 2 KiB.' })
  address!: Record<string, unknown> | null;

  @Field(() => Boolean)
  active!: boolean;

  @Field(() => Boolean, { description: 'Orders take and give back stock in the default warehouse.' })
  isDefault!: boolean;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class WarehousePage {
  @Field(() => [WarehouseType])
  data!: WarehouseType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class WarehouseCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Derived from the name when omitted; unique per store.' })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  @Matches(WAREHOUSE_CODE, { message: 'must be letters, digits, dots, dashes and underscores' })
  code?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  email?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  address?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'True: this becomes the default warehouse. The first warehouse of a store is always its default.' })
  @IsOptional()
  isDefault?: boolean | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  metadata?: Record<string, unknown> | null;
}

@InputType()
export class WarehouseUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  @Matches(WAREHOUSE_CODE, { message: 'must be letters, digits, dots, dashes and underscores' })
  code?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  email?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  address?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'True makes this the default; the default stops being one only when another becomes it.' })
  @IsOptional()
  isDefault?: boolean | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  metadata?: Record<string, unknown> | null;
}

@InputType()
export class WarehouseBatchDeleteInput extends BatchInput {}

@ObjectType()
export class WarehouseBatchResult {
  @Field(() => [WarehouseType], { description: 'The deleted warehouses.' })
  resources!: WarehouseType[];

  @Field(() => [BatchFailure])
  failures!: BatchFailure[];

  @Field(() => BatchSummary)
  summary!: BatchSummary;

  @Field(() => Boolean, { description: 'returnPartialSuccess was false and something failed: nothing changed.' })
  aborted!: boolean;
}

@ObjectType('InventoryLevel')
export class InventoryLevelType {
  @Field(() => ID)
  warehouseId!: string;

  @Field(() => ID)
  productId!: string;

  @Field(() => Int)
  onHand!: number;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class InventoryLevelPage {
  @Field(() => [InventoryLevelType])
  data!: InventoryLevelType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@ObjectType('InventoryMovement')
export class InventoryMovementType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  productId!: string;

  @Field(() => ID, { nullable: true, description: 'Null for a store without warehouses.' })
  warehouseId!: string | null;

  @Field(() => Int)
  delta!: number;

  @Field(() => String, { description: 'order, purchase_order or adjustment.' })
  reason!: string;

  @Field(() => String, { nullable: true, description: 'The order or purchase order that caused it.' })
  refId!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;
}

@ObjectType()
export class InventoryMovementPage {
  @Field(() => [InventoryMovementType])
  data!: InventoryMovementType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class InventoryAdjustInput {
  @Field(() => ID)
  productId!: string;

  @Field(() => ID, { nullable: true, description: 'Default: the default warehouse.' })
  @IsOptional()
  warehouseId?: string | null;

  @Field(() => Int, { nullable: true, description: 'Add (or, negative, remove) this many; exactly one of delta and onHand.' })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(-1e9, { message: 'is too small' })
  @Max(1e9, { message: 'is too large' })
  delta?: number | null;

  @Field(() => Int, { nullable: true, description: 'Set the level to this count.' })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(-1e9, { message: 'is too small' })
  @Max(1e9, { message: 'is too large' })
  onHand?: number | null;
}

/** A level's key in batch inputs: `{warehouseId}~{productId}`. */
export const LEVEL_KEY = /^([^~]+)~([^~]+)$/;

@InputType()
export class InventoryReceiveInput {
  @Field(() => ID, { nullable: true, description: 'The product; or its sku (exactly one).' })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true, description: 'The SKU of exactly one product of the store.' })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  sku?: string | null;

  @Field(() => ID, { nullable: true, description: 'Default: the default warehouse.' })
  @IsOptional()
  warehouseId?: string | null;

  @Field(() => Int, { description: 'Units received into the level (0 opens it empty).' })
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e9, { message: 'is too large' })
  quantity!: number;
}

@InputType()
export class InventoryLevelSetInput {
  @Field(() => ID)
  warehouseId!: string;

  @Field(() => ID)
  productId!: string;

  @Field(() => Int, { description: 'The count; the difference is an adjustment movement.' })
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e9, { message: 'is too large' })
  onHand!: number;
}

@InputType()
export class InventoryLevelBatchDeleteInput extends BatchInput {}

@InputType()
export class InventoryLevelBatchSetInput extends BatchInput {
  @Field(() => Int, { description: 'The count every level is set to.' })
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e9, { message: 'is too large' })
  onHand!: number;
}

@ObjectType()
export class InventoryLevelBatchResult {
  @Field(() => [InventoryLevelType], { description: 'The levels as they are now (deleted ones as they were).' })
  resources!: InventoryLevelType[];

  @Field(() => [BatchFailure])
  failures!: BatchFailure[];

  @Field(() => BatchSummary)
  summary!: BatchSummary;

  @Field(() => Boolean, { description: 'returnPartialSuccess was false and something failed: nothing changed.' })
  aborted!: boolean;
}

export const MAX_DELTAS = 500;

@InputType()
export class InventoryDeltaInput {
  @Field(() => ID)
  warehouseId!: string;

  @Field(() => ID)
  productId!: string;

  @Field(() => Int, { description: 'Units added (negative: removed).' })
  @IsInt({ message: 'must be an integer' })
  @Min(-1e9, { message: 'is too small' })
  @Max(1e9, { message: 'is too large' })
  delta!: number;
}

@InputType()
export class InventoryDeltasInput {
  @Field(() => [InventoryDeltaInput], { description: `1 to ${MAX_DELTAS} deltas on existing levels, applied in order, all or none.` })
  @ArrayMinSize(1, { message: 'must hold at least 1 delta' })
  @ArrayMaxSize(MAX_DELTAS, { message: `must hold at most ${MAX_DELTAS} deltas` })
  @ValidateNested({ each: true })
  deltas!: InventoryDeltaInput[];

  @Field(() => String, { nullable: true, description: "Idempotency: deltas already applied under this key in the store are not applied again. Kept as the movements' refId." })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  key?: string | null;
}

@ObjectType()
export class InventoryDeltasResult {
  @Field(() => [InventoryLevelType], { description: 'The levels the deltas named, as they are now.' })
  levels!: InventoryLevelType[];

  @Field(() => Boolean, { description: 'The key was already applied: nothing moved this time.' })
  replayed!: boolean;
}

@ObjectType('InventoryAvailability')
export class InventoryAvailabilityType {
  @Field(() => String)
  sku!: string;

  @Field(() => Int, { description: "The stock of the store's products with this SKU (their levels' sum), never below 0; an unknown SKU is 0." })
  available!: number;
}
