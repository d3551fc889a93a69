import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, IsInt, IsOptional, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';

export const PROMO_TYPES = ['percentage', 'fixed', 'free_shipping'] as const;
export const PROMO_REASONS = ['not_found', 'inactive', 'not_started', 'expired', 'max_uses', 'max_uses_customer', 'min_subtotal', 'not_applicable'] as const;
export type PromoReason = (typeof PROMO_REASONS)[number];
export const PromoKind = graphqlEnum('PromoKind', PROMO_TYPES, 'A percentage off the subtotal, a fixed amount off, or free shipping.');
export const PromoRefusal = graphqlEnum('PromoRefusal', PROMO_REASONS, 'Why a promo code does not apply.');
const CODE = /^[A-Za-z0-9_-]+$/;

@ObjectType('Promo')
export class PromoType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'Upper-cased, unique per store.' })
  code!: string;

  @Field(() => PromoKind)
  type!: string;

  @Field(() => Float, { description: 'A percent for percentage (10 = 10 %), an amount for fixed, 0 for free_shipping.' })
  value!: number;

  @Field(() => Float, { nullable: true })
  minSubtotal!: number | null;

  @Field(() => Int, { nullable: true })
  maxUses!: number | null;

  @Field(() => Int)
  uses!: number;

  @Field(() => Int, { nullable: true })
  maxUsesPerCustomer!: number | null;

  @Field(() => [ID], { description: 'Empty: every product.' })
  productIds!: string[];

  @Field(() => GraphQLISODateTime, { nullable: true })
  startsAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  endsAt!: string | null;

  @Field(() => Boolean)
  active!: boolean;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class PromoPage {
  @Field(() => [PromoType])
  data!: PromoType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class PromoCreateInput {
  @Field(() => String, { description: 'Letters, digits, - and _; stored upper-cased.' })
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  @Matches(CODE, { message: 'must be letters, digits, dashes and underscores' })
  code!: string;

  @Field(() => PromoKind)
  type!: string;

  @Field(() => Float, { nullable: true, description: 'Required for percentage (0 < value <= 100) and fixed (> 0).' })
  @IsOptional()
  value?: number | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  minSubtotal?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1e9, { message: 'is too large' })
  maxUses?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1e9, { message: 'is too large' })
  maxUsesPerCustomer?: number | null;

  @Field(() => [ID], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(500, { message: 'must hold at most 500 ids' })
  productIds?: string[] | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  @IsOptional()
  startsAt?: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Exclusive.' })
  @IsOptional()
  endsAt?: Date | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;
}

@InputType()
export class PromoUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  @Matches(CODE, { message: 'must be letters, digits, dashes and underscores' })
  code?: string | null;

  @Field(() => PromoKind, { nullable: true })
  @IsOptional()
  type?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  value?: number | null;

  @Field(() => Float, { nullable: true, description: 'null removes the minimum.' })
  @IsOptional()
  minSubtotal?: number | null;

  @Field(() => Int, { nullable: true, description: 'null removes the cap.' })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1e9, { message: 'is too large' })
  maxUses?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  @Max(1e9, { message: 'is too large' })
  maxUsesPerCustomer?: number | null;

  @Field(() => [ID], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(500, { message: 'must hold at most 500 ids' })
  productIds?: string[] | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  @IsOptional()
  startsAt?: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Exclusive.' })
  @IsOptional()
  endsAt?: Date | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;
}

@InputType()
export class PromoItemInput {
  @Field(() => ID)
  productId!: string;

  @Field(() => Int, { nullable: true, defaultValue: 1 })
  @IsOptional()
  @Min(1, { message: 'must be 1 or more' })
  @Max(100000, { message: 'is too large' })
  quantity?: number;
}

@InputType()
export class PromoValidateInput {
  @Field(() => String)
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  code!: string;

  @Field(() => [PromoItemInput], { nullable: true, description: 'The cart, priced from the store products; or give orderId.' })
  @IsOptional()
  @ArrayMaxSize(500, { message: 'must hold at most 500 items' })
  @ValidateNested({ each: true })
  items?: PromoItemInput[] | null;

  @Field(() => String, { nullable: true, description: 'Checks maxUsesPerCustomer.' })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  customerPhone?: string | null;

  @Field(() => ID, { nullable: true, description: "An order of the store: its items and customer phone." })
  @IsOptional()
  orderId?: string | null;
}

@ObjectType()
export class PromoValidation {
  @Field(() => Boolean)
  valid!: boolean;

  @Field(() => PromoRefusal, { nullable: true, description: 'Null when valid.' })
  reason!: PromoReason | null;

  @Field(() => Float)
  subtotal!: number;

  @Field(() => Float)
  discount!: number;

  @Field(() => Float)
  total!: number;

  @Field(() => Boolean)
  freeShipping!: boolean;
}
