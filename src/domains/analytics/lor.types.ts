import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsOptional } from 'class-validator';

@ObjectType('LorBucket')
export class LorBucketType {
  @Field(() => String, { description: "The bucket's start: an ISO 8601 instant with the zone's offset at that moment." })
  start!: string;

  @Field(() => Int, { description: 'Orders created in the bucket (within from..to).' })
  orders!: number;

  @Field(() => Int, { description: 'Of those, orders whose status kind is fulfilled.' })
  completed!: number;

  @Field(() => Int, { description: 'Of those, orders whose status kind is cancelled, rejected or returned.' })
  cancelled!: number;

  @Field(() => Int, { description: 'Of the cancelled, orders whose status kind is returned.' })
  returned!: number;

  @Field(() => Int, { description: 'orders - completed - cancelled.' })
  rest!: number;

  @Field(() => Int, { description: 'Orders with confirmedAt set.' })
  confirmed!: number;

  @Field(() => Float, { description: "Store scope: sum of the completed orders' total; product scope: the product's lines in them. Major units of the store currency." })
  revenue!: number;

  @Field(() => Int, { nullable: true, description: 'Product scope: quantity of the product in completed orders; null otherwise.' })
  units!: number | null;
}

@ObjectType('LorTotals')
export class LorTotalsType {
  @Field(() => Int)
  orders!: number;

  @Field(() => Int)
  completed!: number;

  @Field(() => Int)
  cancelled!: number;

  @Field(() => Int)
  returned!: number;

  @Field(() => Int)
  rest!: number;

  @Field(() => Int)
  confirmed!: number;

  @Field(() => Float)
  revenue!: number;

  @Field(() => Int, { nullable: true })
  units!: number | null;
}

@ObjectType('LorRates', { description: 'Ratios of the totals; null where the denominator is 0.' })
export class LorRatesType {
  @Field(() => Float, { nullable: true, description: 'confirmed / orders' })
  confirmation!: number | null;

  @Field(() => Float, { nullable: true, description: 'completed / (completed + cancelled)' })
  completion!: number | null;

  @Field(() => Float, { nullable: true, description: 'cancelled / orders' })
  cancellation!: number | null;

  @Field(() => Float, { nullable: true, description: 'returned / (completed + returned)' })
  return!: number | null;
}

@ObjectType('Lor', { description: 'The lite orders report: order counts per time bucket of a store, a product or a landing page.' })
export class LorType {
  @Field(() => String, { description: '`store`, `product` or `landingPage`.' })
  scope!: string;

  @Field(() => String, { description: 'Start of the window (inclusive), an ISO 8601 instant with offset.' })
  from!: string;

  @Field(() => String, { description: 'End of the window (exclusive), an ISO 8601 instant with offset.' })
  to!: string;

  @Field(() => String, { description: '`day`, `week` (ISO, from Monday) or `month`.' })
  interval!: string;

  @Field(() => String, { description: 'The IANA time zone of the buckets.' })
  tz!: string;

  @Field(() => String, { description: 'When this report was computed (UTC).' })
  lastSync!: string;

  @Field(() => String, { nullable: true, description: "The newest order's createdAt in the scope, at any time; null without orders." })
  lastItemDate!: string | null;

  @Field(() => Int, { description: 'All orders of the scope, inside and outside the window.' })
  totalOrders!: number;

  @Field(() => [[Int]], { description: '[completed, cancelled, rest] per bucket, oldest first.' })
  data!: number[][];

  @Field(() => [LorBucketType])
  buckets!: LorBucketType[];

  @Field(() => LorTotalsType)
  totals!: LorTotalsType;

  @Field(() => LorRatesType)
  rates!: LorRatesType;
}

@ObjectType('LorAnswer', { description: 'The body of the lor routes: `{lor}`.' })
export class LorAnswerType {
  @Field(() => LorType)
  lor!: LorType;
}

@ObjectType('ProductLor')
export class ProductLorType {
  @Field(() => ID)
  productId!: string;

  @Field(() => LorType)
  lor!: LorType;
}

@ObjectType('ProductLorFailure')
export class ProductLorFailureType {
  @Field(() => ID)
  productId!: string;

  @Field(() => String, { description: 'NOT_FOUND: no such product in this store.' })
  code!: string;
}

@ObjectType('ProductLorBatch')
export class ProductLorBatchType {
  @Field(() => [ProductLorType], { description: 'In the order of productIds (a repeated id answers once).' })
  data!: ProductLorType[];

  @Field(() => [ProductLorFailureType])
  failed!: ProductLorFailureType[];
}

@ObjectType('StoreLor')
export class StoreLorType {
  @Field(() => ID)
  storeId!: string;

  @Field(() => LorType)
  lor!: LorType;
}

@ObjectType('StoreLorFailure')
export class StoreLorFailureType {
  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'NOT_FOUND: no such store, or one the caller is not a member of.' })
  code!: string;
}

@ObjectType('StoreLorBatch')
export class StoreLorBatchType {
  @Field(() => [StoreLorType], { description: 'In the order of storeIds (a repeated id answers once).' })
  data!: StoreLorType[];

  @Field(() => [StoreLorFailureType])
  failed!: StoreLorFailureType[];
}

/** The window fields both batches share. */
@InputType()
abstract class LorWindowInput {
  @Field(() => String, { nullable: true, description: 'Inclusive: an ISO date (midnight in tz) or date-time. Default: 8 days before to.' })
  @IsOptional()
  from?: string | null;

  @Field(() => String, { nullable: true, description: 'Exclusive: an ISO date (midnight in tz) or date-time. Default: the end of today in tz.' })
  @IsOptional()
  to?: string | null;

  @Field(() => String, { nullable: true, description: '`day` (default), `week` or `month`.' })
  @IsOptional()
  interval?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA time zone name; default UTC.' })
  @IsOptional()
  tz?: string | null;
}

@InputType()
export class ProductLorBatchInput extends LorWindowInput {
  @Field(() => [ID], { description: '1 to 100 product ids of the store.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 id' })
  @ArrayMaxSize(100, { message: 'must hold at most 100 ids' })
  productIds!: string[];
}

@InputType()
export class StoreLorBatchInput extends LorWindowInput {
  @Field(() => [ID], { description: '1 to 50 store ids.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 id' })
  @ArrayMaxSize(50, { message: 'must hold at most 50 ids' })
  storeIds!: string[];
}
