import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsOptional, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { DELIVERY_TYPES, METHOD_POLICIES, METHOD_STATUSES, PRICE_STATUSES } from './shipping.entity.js';
import { graphqlEnum } from '../../core/enums.js';
import { IsHttpUrl, NameText } from '../../core/input.js';

export const ShippingType = graphqlEnum('ShippingType', DELIVERY_TYPES, 'How an order is delivered: to the door (`home`), to a carrier desk (`desk`) or picked up at the store (`pickup`).');
export const ShippingPriceStatus = graphqlEnum('ShippingPriceStatus', PRICE_STATUSES);
export const ShippingMethodStatus = graphqlEnum('ShippingMethodStatus', METHOD_STATUSES);
export const ShippingMethodPolicy = graphqlEnum('ShippingMethodPolicy', METHOD_POLICIES, '`public` methods may be forked by other stores.');

const CURRENCY = /^[A-Z]{3}$/;

@ObjectType('ShippingPrice')
export class ShippingPriceType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  logoUrl!: string | null;

  @Field(() => String, { description: 'ISO 4217; the currency of every amount in `prices`.' })
  currency!: string;

  @Field(() => ShippingPriceStatus, { description: '`draft` or `published`.' })
  status!: string;

  @Field(() => GraphQLJSONObject, {
    description: 'Country (ISO 3166-1 alpha-2) → state code → `{home, desk, pickup}` in major units; null = not delivered that way.',
  })
  prices!: Record<string, Record<string, Record<string, number | null>>>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class ShippingPricePage {
  @Field(() => [ShippingPriceType])
  data!: ShippingPriceType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class ShippingPriceCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  logoUrl?: string | null;

  @Field(() => String, { nullable: true, description: "Default: the store's currency." })
  @IsOptional()
  @Matches(CURRENCY, { message: 'must be an ISO 4217 code' })
  currency?: string | null;

  @Field(() => ShippingPriceStatus, { nullable: true, description: 'Default `draft`.' })
  @IsOptional()
  status?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Default `{}`.' })
  @IsOptional()
  prices?: Record<string, unknown> | null;
}

/** PUT: `prices` is replaced whole; the other fields given are set. */
@InputType()
export class ShippingPriceReplaceInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  logoUrl?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(CURRENCY, { message: 'must be an ISO 4217 code' })
  currency?: string | null;

  @Field(() => ShippingPriceStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => GraphQLJSONObject)
  prices!: Record<string, unknown>;
}

@ObjectType('ShippingMethod')
export class ShippingMethodType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true })
  logoUrl!: string | null;

  @Field(() => Float, { description: "Flat rate in the store's currency, charged when no shipping price is linked." })
  price!: number;

  @Field(() => ID, { nullable: true, description: 'The shipping price whose table quotes this method.' })
  shippingPriceId!: string | null;

  @Field(() => ShippingMethodStatus, { description: '`draft`, `published` or `archived`.' })
  status!: string;

  @Field(() => ShippingMethodPolicy, { description: '`private` or `public` (any store may fork it).' })
  policy!: string;

  @Field(() => ID, { nullable: true, description: 'The method this one was forked from.' })
  sourceId!: string | null;

  @Field(() => Int, { description: 'How many methods were forked from this one.' })
  forks!: number;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class ShippingMethodPage {
  @Field(() => [ShippingMethodType])
  data!: ShippingMethodType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

/** Create, and PUT (which replaces every field: omitted ones take their defaults). */
@InputType()
export class ShippingMethodInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(5000, { message: 'must be at most 5000 characters' })
  description?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  logoUrl?: string | null;

  @Field(() => Float, { nullable: true, description: 'Default 0.' })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  price?: number | null;

  @Field(() => ID, { nullable: true, description: 'A shipping price of the same store.' })
  @IsOptional()
  shippingPriceId?: string | null;

  @Field(() => ShippingMethodStatus, { nullable: true, description: 'Default `draft`.' })
  @IsOptional()
  status?: string | null;

  @Field(() => ShippingMethodPolicy, { nullable: true, description: 'Default `private`.' })
  @IsOptional()
  policy?: string | null;
}

/** PATCH: the fields given change; `null` clears a nullable one. */
@InputType()
export class ShippingMethodUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(5000, { message: 'must be at most 5000 characters' })
  description?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  logoUrl?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  price?: number | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  shippingPriceId?: string | null;

  @Field(() => ShippingMethodStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => ShippingMethodPolicy, { nullable: true })
  @IsOptional()
  policy?: string | null;
}

@InputType()
export class ShippingMethodForkInput {
  @Field(() => String, { nullable: true, description: "The copy's name; default the source's." })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'Same as `name` (the spelling template components use).' })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title?: string | null;
}

@ObjectType('ShippingQuote')
export class ShippingQuoteType {
  @Field(() => ID)
  methodId!: string;

  @Field(() => String)
  country!: string;

  @Field(() => String, { nullable: true })
  state!: string | null;

  @Field(() => ShippingType)
  type!: string;

  @Field(() => Boolean, { description: 'False when the method does not deliver there that way.' })
  available!: boolean;

  @Field(() => Float, { nullable: true, description: 'Major units of `currency`; null when not available.' })
  price!: number | null;

  @Field(() => String)
  currency!: string;
}
