import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { JsonDocument, METADATA_MAX_BYTES, NameText } from '../../core/input.js';
import { ArrayMaxSize, IsOptional, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Page } from '../../lib/pagination.js';
import { graphqlEnum } from '../../core/enums.js';
import { ShippingType } from '../shipping/shipping.types.js';

/** What an order may hold, as the API's inputs check it; imports apply the same limits (order.import.ts). */
export const ORDER_LIMITS = {
  nameLength: 200,
  phoneLength: 50,
  addressLength: 500,
  communeIdLength: 50,
  quantity: 100000,
  items: 500,
  /** Major units. */
  amount: 1e12,
  stateCode: /^[A-Za-z0-9-]{1,10}$/,
} as const;

export const ORDER_PAYMENT_STATUSES = ['unpaid', 'pending', 'partially_paid', 'paid', 'partially_refunded', 'refunded'] as const;
export const PaymentStatus = graphqlEnum(
  'PaymentStatus',
  ORDER_PAYMENT_STATUSES,
  "Where an order's payment stands, following its payments and refunds: `partially_paid` when its payments collected less than its total (cash on delivery then collects the rest).",
);

@ObjectType('OrderItem')
export class OrderItemType {
  @Field(() => ID, { nullable: true })
  productId!: string | null;

  @Field(() => String)
  name!: string;

  @Field(() => Int)
  quantity!: number;

  @Field(() => Float)
  price!: number;
}

@ObjectType('ShippingAddress')
export class ShippingAddressType {
  @Field(() => String, { description: 'ISO 3166-1 alpha-2, default DZ.' })
  country!: string;

  @Field(() => String, { nullable: true })
  address!: string | null;

  @Field(() => String, { nullable: true })
  communeId!: string | null;

  @Field(() => String, { nullable: true })
  communeName!: string | null;

  @Field(() => String, { nullable: true, description: 'State (wilaya) code, e.g. "16".' })
  wilayaCode!: string | null;
}

@ObjectType('Fulfillment')
export class FulfillmentType {
  @Field(() => String, { nullable: true })
  parcelId!: string | null;

  @Field(() => String, { nullable: true })
  tracking!: string | null;

  @Field(() => String, { nullable: true })
  status!: string | null;

  @Field(() => String, { nullable: true })
  labelUrl!: string | null;
}

export const ORDER_SOURCES = ['api', 'storefront'] as const;
export const OrderSource = graphqlEnum('OrderSource', ORDER_SOURCES, 'Where an order came from: `api` (a member or an app), `storefront` (a shopper without an account).');

@ObjectType('OrderRiskReason')
export class OrderRiskReasonType {
  @Field(() => String, { description: 'DELIVERED, RETURNED, REFUSED, CANCELLED, ADDRESS_BURST, FIRST_ORDER, BLOCKLIST_RELATED.' })
  code!: string;

  @Field(() => String)
  detail!: string;
}

@ObjectType('OrderRisk', { description: "A storefront order's risk, from this store's own history of its phone and address only." })
export class OrderRiskType {
  @Field(() => Int, { description: '0 to 100; higher is riskier.' })
  score!: number;

  @Field(() => [OrderRiskReasonType])
  reasons!: OrderRiskReasonType[];
}

@ObjectType('Order')
export class OrderType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  customerName!: string;

  @Field(() => String, { nullable: true })
  customerPhone!: string | null;

  @Field(() => String, { nullable: true })
  customerEmail!: string | null;

  @Field(() => OrderSource)
  source!: string;

  @Field(() => String, { nullable: true, description: "The buyer's address of a storefront order." })
  customerIp!: string | null;

  @Field(() => String, { nullable: true, description: "The shopper's note to the merchant." })
  note!: string | null;

  @Field(() => OrderRiskType, { nullable: true, description: 'Storefront orders only.' })
  risk!: OrderRiskType | null;

  @Field(() => [OrderItemType])
  items!: OrderItemType[];

  @Field(() => Float, { description: 'Items (quantity x price) + shippingCost - discount, in major units.' })
  total!: number;

  @Field(() => String, { description: 'ISO 4217; the store currency when the order was created.' })
  currency!: string;

  @Field(() => ShippingAddressType, { nullable: true })
  shippingAddress!: ShippingAddressType | null;

  @Field(() => ID, { nullable: true })
  shippingMethodId!: string | null;

  @Field(() => ShippingType, { nullable: true })
  shippingType!: string | null;

  @Field(() => Float)
  shippingCost!: number;

  @Field(() => String, { nullable: true })
  promoCode!: string | null;

  @Field(() => Float)
  discount!: number;

  @Field(() => FulfillmentType, { nullable: true })
  fulfillment!: FulfillmentType | null;

  @Field(() => PaymentStatus)
  paymentStatus!: string;

  @Field(() => String, { nullable: true })
  paymentMethod!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Set on the first move to a confirmed or fulfilled kind, never cleared.' })
  confirmedAt!: string | null;

  @Field(() => ID, { nullable: true })
  landingPageId!: string | null;

  @Field(() => String, { description: "The slug of the order's status." })
  status!: string;

  @Field(() => ID)
  statusId!: string;

  @Field(() => String, { nullable: true })
  rejectReason!: string | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;

  @Field(() => String, { nullable: true, description: "Only in the create response: a bearer token for this order's payment methods, select, checkout and status." })
  paymentToken?: string | null;
}

export const OrderPage = Page(OrderType);
export type OrderPage = InstanceType<typeof OrderPage>;

@InputType()
export class OrderItemInput {
  @Field(() => ID, { nullable: true, description: "A product of the store; name and price default to the product's." })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, ORDER_LIMITS.nameLength, { message: `must be 1 to ${ORDER_LIMITS.nameLength} characters` })
  @NameText()
  name?: string | null;

  @Field(() => Int, { nullable: true, defaultValue: 1 })
  @IsOptional()
  @Min(1, { message: 'must be 1 or more' })
  @Max(ORDER_LIMITS.quantity, { message: 'is too large' })
  quantity?: number;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(ORDER_LIMITS.amount, { message: 'is too large' })
  price?: number | null;
}

@InputType()
export class ShippingAddressInput {
  @Field(() => String, { nullable: true, defaultValue: 'DZ', description: 'ISO 3166-1 alpha-2, default DZ.' })
  @IsOptional()
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 code' })
  country?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, ORDER_LIMITS.addressLength, { message: `must be at most ${ORDER_LIMITS.addressLength} characters` })
  address?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, ORDER_LIMITS.communeIdLength, { message: `must be 1 to ${ORDER_LIMITS.communeIdLength} characters` })
  communeId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, ORDER_LIMITS.nameLength, { message: `must be 1 to ${ORDER_LIMITS.nameLength} characters` })
  @NameText()
  communeName?: string | null;

  @Field(() => String, { nullable: true, description: 'State (wilaya) code, e.g. "16".' })
  @IsOptional()
  @Matches(ORDER_LIMITS.stateCode, { message: 'must be a state code of letters, digits and dashes (e.g. "16")' })
  wilayaCode?: string | null;
}

@InputType()
export class OrderCreateInput {
  @Field(() => String)
  @Length(1, ORDER_LIMITS.nameLength, { message: `must be 1 to ${ORDER_LIMITS.nameLength} characters` })
  @NameText()
  customerName!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, ORDER_LIMITS.phoneLength, { message: `must be 1 to ${ORDER_LIMITS.phoneLength} characters` })
  customerPhone?: string | null;

  @Field(() => [OrderItemInput], { nullable: true, defaultValue: [], description: 'Omitted: an order without items (total 0).' })
  @IsOptional()
  @ArrayMaxSize(ORDER_LIMITS.items, { message: `must hold at most ${ORDER_LIMITS.items} items` })
  @ValidateNested({ each: true })
  items?: OrderItemInput[];

  @Field(() => ShippingAddressInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  shippingAddress?: ShippingAddressInput | null;

  @Field(() => ID, { nullable: true, description: 'A shipping method of the store: it prices shippingCost (with shippingType and the address).' })
  @IsOptional()
  shippingMethodId?: string | null;

  @Field(() => ShippingType, { nullable: true })
  @IsOptional()
  shippingType?: string | null;

  @Field(() => String, { nullable: true, description: 'A promo code of the store: the order takes its discount and counts one use; an unusable code is a 409 naming the reason.' })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  promoCode?: string | null;

  @Field(() => ID, { nullable: true, description: 'The product landing page of the store that brought the order.' })
  @IsOptional()
  landingPageId?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'At most 64 KiB of JSON, nested at most 32 levels.' })
  @IsOptional()
  @JsonDocument({ maxBytes: METADATA_MAX_BYTES })
  metadata?: Record<string, unknown> | null;
}

@InputType()
export class OrderUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, ORDER_LIMITS.nameLength, { message: `must be 1 to ${ORDER_LIMITS.nameLength} characters` })
  @NameText()
  customerName?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, ORDER_LIMITS.phoneLength, { message: `must be at most ${ORDER_LIMITS.phoneLength} characters` })
  customerPhone?: string | null;

  @Field(() => [OrderItemInput], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(ORDER_LIMITS.items, { message: `must hold at most ${ORDER_LIMITS.items} items` })
  @ValidateNested({ each: true })
  items?: OrderItemInput[] | null;

  @Field(() => String, { nullable: true, description: 'The slug of one of the store statuses.' })
  @IsOptional()
  status?: string | null;

  @Field(() => ID, { nullable: true, description: 'A product landing page of the store; null clears it.' })
  @IsOptional()
  landingPageId?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'At most 64 KiB of JSON, nested at most 32 levels.' })
  @IsOptional()
  @JsonDocument({ maxBytes: METADATA_MAX_BYTES })
  metadata?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'An RFC 7396 merge patch of metadata, applied to the stored metadata under the row lock (a null member removes a key); after metadata when both are given.',
  })
  @IsOptional()
  @JsonDocument({ maxBytes: METADATA_MAX_BYTES })
  metadataPatch?: Record<string, unknown> | null;
}
