import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsOptional, Length, Matches } from 'class-validator';
import { SLUG_PATTERN } from '../../lib/slug.js';
import { graphqlEnum } from '../../core/enums.js';
import { NameText } from '../../core/input.js';

export const LANDING_PAGE_STATUSES = ['draft', 'published', 'archived'] as const;
export const LandingPageStatus = graphqlEnum('LandingPageStatus', LANDING_PAGE_STATUSES);

@ObjectType('ProductLandingPage')
export class ProductLandingPageType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID, { nullable: true, description: 'The product the page sells; null once that product is deleted.' })
  productId!: string | null;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Unique per store.' })
  slug!: string;

  @Field(() => LandingPageStatus)
  status!: string;

  @Field(() => GraphQLJSONObject, { description: "The page builder's content, stored as given." })
  content!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class ProductLandingPagePage {
  @Field(() => [ProductLandingPageType])
  data!: ProductLandingPageType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class ProductLandingPageCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => ID, { nullable: true, description: 'A product of the store.' })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true, description: 'Derived from the name when omitted; unique per store.' })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => LandingPageStatus, { nullable: true, description: 'Default `draft`.' })
  @IsOptional()
  status?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  content?: Record<string, unknown> | null;
}

@InputType()
export class ProductLandingPageUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => ID, { nullable: true, description: 'A product of the store; null detaches the page.' })
  @IsOptional()
  productId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'must be lowercase letters, digits and single dashes' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => LandingPageStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  content?: Record<string, unknown> | null;
}
