import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsHttpUrl, JsonDocument, METADATA_MAX_BYTES, NameText } from '../../core/input.js';
import { ArrayMaxSize, IsInt, IsOptional, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { SLUG_PATTERN } from '../../lib/slug.js';
import { Page } from '../../lib/pagination.js';
import { graphqlEnum } from '../../core/enums.js';

export const PRODUCT_STATUSES = ['draft', 'active', 'archived'] as const;
/** What a product's shop-front fields may hold. */
export const PRODUCT_LIMITS = { descriptionLength: 20_000, urlLength: 2000, images: 20 } as const;

export const ProductStatus = graphqlEnum('ProductStatus', PRODUCT_STATUSES, 'Where a product is in its life: `draft`, `active` (orderable) or `archived`.');

@ObjectType('Product')
export class ProductType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => Float)
  price!: number;

  @Field(() => String, { nullable: true })
  sku!: string | null;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => Float, { nullable: true, description: 'The price before a reduction, shown struck through.' })
  compareAtPrice!: number | null;

  @Field(() => String, { nullable: true })
  photoUrl!: string | null;

  @Field(() => [String], { description: 'Further image URLs, in display order.' })
  images!: string[];

  @Field(() => Int, { description: "On hand; the sum of the product's inventory levels when the store has warehouses." })
  stock!: number;

  @Field(() => Boolean, { description: 'Orders may take stock below zero.' })
  allowBackorder!: boolean;

  @Field(() => ProductStatus)
  status!: string;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

export const ProductPage = Page(ProductType);
export type ProductPage = InstanceType<typeof ProductPage>;

@InputType()
export class ProductCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Derived from the name when omitted; unique per store.' })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => Float)
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  price!: number;

  @Field(() => Int, { nullable: true, defaultValue: 0 })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e9, { message: 'is too large' })
  stock?: number;

  @Field(() => ProductStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  sku?: string | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  allowBackorder?: boolean | null;

  @Field(() => String, { nullable: true, description: `At most ${PRODUCT_LIMITS.descriptionLength} characters.` })
  @IsOptional()
  @MaxLength(PRODUCT_LIMITS.descriptionLength, { message: `must be at most ${PRODUCT_LIMITS.descriptionLength} characters` })
  description?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  compareAtPrice?: number | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL.' })
  @IsOptional()
  @MaxLength(PRODUCT_LIMITS.urlLength, { message: `must be at most ${PRODUCT_LIMITS.urlLength} characters` })
  @IsHttpUrl()
  photoUrl?: string | null;

  @Field(() => [String], { nullable: true, description: `At most ${PRODUCT_LIMITS.images} http(s) URLs.` })
  @IsOptional()
  @ArrayMaxSize(PRODUCT_LIMITS.images, { message: `must hold at most ${PRODUCT_LIMITS.images} URLs` })
  @MaxLength(PRODUCT_LIMITS.urlLength, { each: true, message: `must be at most ${PRODUCT_LIMITS.urlLength} characters` })
  @IsHttpUrl({ each: true })
  images?: string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'At most 64 KiB of JSON, nested at most 32 levels.' })
  @IsOptional()
  @JsonDocument({ maxBytes: METADATA_MAX_BYTES })
  metadata?: Record<string, unknown> | null;
}

@InputType()
export class ProductUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  price?: number | null;

  @Field(() => Int, { nullable: true, description: 'May go below zero (oversold) on update.' })
  @IsOptional()
  @Min(-1e9, { message: 'is too small' })
  @Max(1e9, { message: 'is too large' })
  stock?: number | null;

  @Field(() => ProductStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  sku?: string | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  allowBackorder?: boolean | null;

  @Field(() => String, { nullable: true, description: `At most ${PRODUCT_LIMITS.descriptionLength} characters.` })
  @IsOptional()
  @MaxLength(PRODUCT_LIMITS.descriptionLength, { message: `must be at most ${PRODUCT_LIMITS.descriptionLength} characters` })
  description?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @Min(0, { message: 'must be 0 or more' })
  @Max(1e12, { message: 'is too large' })
  compareAtPrice?: number | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL.' })
  @IsOptional()
  @MaxLength(PRODUCT_LIMITS.urlLength, { message: `must be at most ${PRODUCT_LIMITS.urlLength} characters` })
  @IsHttpUrl()
  photoUrl?: string | null;

  @Field(() => [String], { nullable: true, description: `At most ${PRODUCT_LIMITS.images} http(s) URLs.` })
  @IsOptional()
  @ArrayMaxSize(PRODUCT_LIMITS.images, { message: `must hold at most ${PRODUCT_LIMITS.images} URLs` })
  @MaxLength(PRODUCT_LIMITS.urlLength, { each: true, message: `must be at most ${PRODUCT_LIMITS.urlLength} characters` })
  @IsHttpUrl({ each: true })
  images?: string[] | null;

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
