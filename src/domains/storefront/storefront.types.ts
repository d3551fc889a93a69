import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMinSize, IsEmail, IsOptional, Length, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { JsonDocument } from '../../core/input.js';
import { Page } from '../../lib/pagination.js';
import { OrderStatusKind } from '../orders/statuses.js';
import { PaymentStatus } from '../orders/order.types.js';

/**
 * What shoppers without an account see (CONTRACT-3 §17): types of their own, built from the
 * domains' services and never the member types with fields hidden, so a field added to a member
 * type can never reach the public by default.
 */

export const PRODUCT_SORTS = ['newest', 'price_asc', 'price_desc', 'name_asc'] as const;
export const StorefrontProductSort = graphqlEnum('StorefrontProductSort', PRODUCT_SORTS, 'How a storefront lists products: newest first, by price either way, or by name.');

export const SHOPPER_DELIVERY_TYPES = ['home', 'desk'] as const;
export const ShopperDeliveryType = graphqlEnum('ShopperDeliveryType', SHOPPER_DELIVERY_TYPES, 'Delivery to the door (`home`) or to a carrier\'s stop desk (`desk`).');

export const CART_PROBLEM_CODES = ['UNAVAILABLE', 'OUT_OF_STOCK', 'QUANTITY', 'SHIPPING_UNAVAILABLE', 'COUPON_INVALID'] as const;
export const CartProblemCode = graphqlEnum('CartProblemCode', CART_PROBLEM_CODES, 'Why a cart cannot be ordered as it is.');

@ObjectType('PublicProduct', { description: 'An active product as shoppers see it: never its cost, metadata, warehouses or stock movements.' })
export class PublicProductType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => Float)
  price!: number;

  @Field(() => Float, { nullable: true })
  compareAtPrice!: number | null;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true })
  photoUrl!: string | null;

  @Field(() => [String])
  images!: string[];

  @Field(() => String, { nullable: true })
  sku!: string | null;

  @Field(() => Boolean, { description: 'Some are available, or the product may be ordered beyond its stock.' })
  inStock!: boolean;

  @Field(() => Int, { nullable: true, description: "How many are available; null unless the store shows its stock levels." })
  available!: number | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

export const PublicProductPage = Page(PublicProductType);
export type PublicProductPage = InstanceType<typeof PublicProductPage>;

@ObjectType('PublicLandingPage', { description: 'A published product landing page.' })
export class PublicLandingPageType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String)
  name!: string;

  @Field(() => ID, { nullable: true, description: 'The product it sells; null once that product is gone.' })
  productId!: string | null;

  @Field(() => GraphQLJSONObject, { description: "The page builder's content, as the store wrote it." })
  content!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('ShippingOption')
export class ShippingOptionType {
  @Field(() => ID)
  methodId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => ShopperDeliveryType)
  type!: string;

  @Field(() => Float)
  price!: number;

  @Field(() => String)
  currency!: string;
}

@ObjectType('ShippingOptions')
export class ShippingOptionsType {
  @Field(() => String, { description: 'The state (wilaya) code asked for.' })
  state!: string;

  @Field(() => [ShippingOptionType], { description: 'Cheapest first; empty when nothing ships there.' })
  options!: ShippingOptionType[];
}

@InputType()
export class CartItemInput {
  @Field(() => String, { description: "A product's id or slug." })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  productId!: string;

  @Field(() => Int)
  @Min(1, { message: 'must be 1 or more' })
  @Max(1_000_000, { message: 'is too large' })
  quantity!: number;
}

@InputType()
export class CartShippingInput {
  @Field(() => String, { description: 'The state (wilaya) code, e.g. "16".' })
  @Length(1, 10, { message: 'must be a state code' })
  state!: string;

  @Field(() => ShopperDeliveryType)
  type!: string;

  @Field(() => ID, { nullable: true, description: 'One of the shipping options; the cheapest of the type when omitted.' })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  methodId?: string | null;
}

@InputType({ description: 'A cart: every amount comes from the store, none from the client.' })
export class CartInput {
  @Field(() => [CartItemInput])
  @ArrayMinSize(1, { message: 'must hold at least one item' })
  @ValidateNested({ each: true })
  items!: CartItemInput[];

  @Field(() => CartShippingInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  shipping?: CartShippingInput | null;

  @Field(() => String, { nullable: true, description: 'A promo code.' })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  coupon?: string | null;

  @Field(() => String, { nullable: true, description: "The shopper's phone, for promo caps per customer." })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  customerPhone?: string | null;
}

@ObjectType('CartLine')
export class CartLineType {
  @Field(() => ID)
  productId!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Float)
  unitPrice!: number;

  @Field(() => Int)
  quantity!: number;

  @Field(() => Float)
  lineTotal!: number;
}

@ObjectType('CartCoupon')
export class CartCouponType {
  @Field(() => String)
  code!: string;

  @Field(() => Boolean)
  valid!: boolean;

  @Field(() => String, { nullable: true, description: 'Why it does not apply (not_found, inactive, expired, ...); null when valid.' })
  reason!: string | null;
}

@ObjectType('CartProblem')
export class CartProblemType {
  @Field(() => String, { description: 'The input field at fault, e.g. `items.0.quantity`.' })
  path!: string;

  @Field(() => CartProblemCode)
  code!: string;

  @Field(() => String)
  message!: string;
}

@ObjectType('CartPrice', { description: 'A cart priced by the store: what an order of it would cost now.' })
export class CartPriceType {
  @Field(() => String)
  currency!: string;

  @Field(() => [CartLineType], { description: 'The lines that can be priced (known, active products).' })
  items!: CartLineType[];

  @Field(() => Float)
  subtotal!: number;

  @Field(() => Float)
  discount!: number;

  @Field(() => Float)
  shippingPrice!: number;

  @Field(() => Float)
  total!: number;

  @Field(() => CartCouponType, { nullable: true })
  coupon!: CartCouponType | null;

  @Field(() => [CartProblemType], { description: 'Empty when the cart can be ordered.' })
  problems!: CartProblemType[];
}

@InputType()
export class CheckoutShippingInput {
  @Field(() => String, { description: 'The state (wilaya) code, e.g. "16".' })
  @Length(1, 10, { message: 'must be a state code' })
  state!: string;

  @Field(() => String, { description: 'The city (commune).' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  city!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500, { message: 'must be at most 500 characters' })
  address?: string | null;

  @Field(() => ShopperDeliveryType)
  type!: string;

  @Field(() => ID, { nullable: true, description: 'One of the shipping options; the cheapest of the type when omitted.' })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  methodId?: string | null;
}

@InputType({ description: 'A guest checkout: every amount comes from the store, none from the client.' })
export class StorefrontOrderInput {
  @Field(() => String)
  @Length(1, 120, { message: 'must be 1 to 120 characters' })
  customerName!: string;

  @Field(() => String, { description: "Read in the store's phone region; kept in E.164." })
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  customerPhone!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(254, { message: 'must be at most 254 characters' })
  @IsEmail({}, { message: 'must be an email address' })
  customerEmail?: string | null;

  @Field(() => CheckoutShippingInput)
  @ValidateNested()
  shipping!: CheckoutShippingInput;

  @Field(() => [CartItemInput])
  @ArrayMinSize(1, { message: 'must hold at least one item' })
  @ValidateNested({ each: true })
  items!: CartItemInput[];

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  coupon?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(1000, { message: 'must be at most 1000 characters' })
  note?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'At most 4 KiB of JSON, kept for the merchant.' })
  @IsOptional()
  @JsonDocument({ maxBytes: 4096 })
  metadata?: Record<string, unknown> | null;
}

@ObjectType('PublicOrderStatus')
export class PublicOrderStatusType {
  @Field(() => String)
  name!: string;

  @Field(() => OrderStatusKind)
  kind!: string;
}

@ObjectType('PublicOrderItem')
export class PublicOrderItemType {
  @Field(() => ID, { nullable: true })
  productId!: string | null;

  @Field(() => String)
  name!: string;

  @Field(() => Float)
  unitPrice!: number;

  @Field(() => Int)
  quantity!: number;

  @Field(() => Float)
  lineTotal!: number;
}

@ObjectType('PublicOrderHistoryEntry')
export class PublicOrderHistoryType {
  @Field(() => GraphQLISODateTime)
  at!: string;

  @Field(() => String, { description: "The status's name then." })
  status!: string;

  @Field(() => OrderStatusKind)
  kind!: string;
}

@ObjectType('PublicParcel')
export class PublicParcelType {
  @Field(() => String, { nullable: true })
  trackingNumber!: string | null;

  @Field(() => String, { description: 'pending, picked_up, in_transit, out_for_delivery, delivered, returned, ... (the carrier parcel statuses).' })
  status!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('PublicOrder', { description: "The customer's view of an order: never its notes, metadata, address, risk or members." })
export class PublicOrderType {
  @Field(() => ID)
  id!: string;

  @Field(() => PublicOrderStatusType)
  status!: PublicOrderStatusType;

  @Field(() => PaymentStatus)
  paymentStatus!: string;

  @Field(() => [PublicOrderItemType])
  items!: PublicOrderItemType[];

  @Field(() => Float)
  subtotal!: number;

  @Field(() => Float)
  discount!: number;

  @Field(() => Float)
  shippingPrice!: number;

  @Field(() => Float)
  total!: number;

  @Field(() => String)
  currency!: string;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;

  @Field(() => [PublicOrderHistoryType], { description: 'Every status the order took, oldest first.' })
  history!: PublicOrderHistoryType[];

  @Field(() => [PublicParcelType])
  parcels!: PublicParcelType[];
}

@ObjectType('StorefrontCheckout')
export class StorefrontCheckoutType {
  @Field(() => PublicOrderType)
  order!: PublicOrderType;

  @Field(() => String, {
    description: "The order's token (its payment token, `opt_…`): the customer's one capability for this order, as a bearer token (tracking, cancel, payment). Shown once.",
  })
  orderToken!: string;

  @Field(() => Boolean, { description: 'The answer of an earlier checkout with the same idempotency key and body (REST: `Idempotent-Replayed: true`).' })
  replayed!: boolean;
}
