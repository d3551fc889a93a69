import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsOptional, Length, Matches } from 'class-validator';
import { SLUG_PATTERN } from '../../lib/slug.js';
import { OrderStatusKind } from './statuses.js';
import { NameText } from '../../core/input.js';

const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
/** applyMany works on at most this many orders per call. */
export const APPLY_MANY_MAX = 500;

@ObjectType('OrderStatus')
export class StatusType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Unique per store; orders carry it as their `status`.' })
  slug!: string;

  @Field(() => String, { description: 'A #rrggbb color.' })
  color!: string;

  @Field(() => Int, { description: 'Place in the store list, from 0.' })
  position!: number;

  @Field(() => OrderStatusKind)
  kind!: string;
}

@InputType()
export class StatusCreateInput {
  @Field(() => String)
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Derived from the name when omitted; unique per store.' })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 80, { message: 'must be 1 to 80 characters' })
  slug?: string | null;

  @Field(() => String, { nullable: true, description: 'A #rrggbb color; gray when omitted.' })
  @IsOptional()
  @Matches(COLOR_PATTERN, { message: 'must be a #rrggbb color' })
  color?: string | null;

  @Field(() => OrderStatusKind, { nullable: true, description: '`other` when omitted.' })
  @IsOptional()
  kind?: string | null;
}

@InputType()
export class StatusUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true, description: "Renaming it renames the `status` of the status's orders." })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 80, { message: 'must be 1 to 80 characters' })
  slug?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(COLOR_PATTERN, { message: 'must be a #rrggbb color' })
  color?: string | null;

  @Field(() => OrderStatusKind, { nullable: true })
  @IsOptional()
  kind?: string | null;
}

@InputType()
export class StatusReorderInput {
  @Field(() => [ID], { description: "Every status id of the store, in the new order." })
  @ArrayMinSize(1, { message: 'must hold every status id of the store' })
  @ArrayMaxSize(1000, { message: 'must hold at most 1000 ids' })
  ids!: string[];
}

@ObjectType()
export class StatusCount {
  @Field(() => ID)
  statusId!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Int)
  count!: number;
}

@ObjectType()
export class StatusCounts {
  @Field(() => [StatusCount], { description: 'Every status of the store, by position.' })
  data!: StatusCount[];

  @Field(() => Int)
  total!: number;
}

@InputType()
export class OrderApplyInput {
  @Field(() => ID)
  statusId!: string;
}

@InputType()
export class OrderRejectInput {
  @Field(() => String, { nullable: true, description: 'Kept on the order as rejectReason.' })
  @IsOptional()
  @Length(1, 1000, { message: 'must be 1 to 1000 characters' })
  reason?: string | null;
}

@InputType()
export class OrderApplyManyInput {
  @Field(() => [ID])
  @ArrayMinSize(1, { message: 'must hold at least one id' })
  @ArrayMaxSize(APPLY_MANY_MAX, { message: `must hold at most ${APPLY_MANY_MAX} ids` })
  orderIds!: string[];

  @Field(() => ID)
  statusId!: string;
}

@ObjectType()
export class AppliedOrder {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'The status slug the order now has.' })
  status!: string;
}

@ObjectType()
export class FailedOrder {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: '`NOT_FOUND` or `CONFLICT` (the move is not allowed).' })
  code!: string;
}

@ObjectType()
export class ApplyManyResult {
  @Field(() => [AppliedOrder])
  data!: AppliedOrder[];

  @Field(() => [FailedOrder])
  failed!: FailedOrder[];
}
