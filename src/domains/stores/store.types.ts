import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { IsEmail, IsOptional, Length, MaxLength } from 'class-validator';
import { ROLES } from '../../core/policy.js';
import { IsHttpUrl } from '../../core/input.js';
import { graphqlEnum } from '../../core/enums.js';
import { Page } from '../../lib/pagination.js';
import { NameText } from '../../core/input.js';

export const StoreRole = graphqlEnum('StoreRole', ROLES, 'A member\'s role in a store, from most to least: owner, admin, editor, viewer.');

@ObjectType('StorefrontLimits', { description: 'Per-store limits on anonymous shoppers; each at most the server bound (SOUK_STOREFRONT_MAX_*).' })
export class StorefrontLimitsType {
  @Field(() => Int, { description: 'Orders per buyer address in 10 minutes.' })
  checkoutsPerAddress!: number;

  @Field(() => Int, { description: 'Orders per phone in 24 hours.' })
  checkoutsPerPhone!: number;

  @Field(() => Int, { description: 'Reads and cart pricing per buyer address in a minute.' })
  readsPerAddress!: number;
}

@ObjectType('StorefrontSettings')
export class StorefrontSettingsType {
  @Field(() => Boolean, { description: 'Off: every storefront route of the store answers 404.' })
  enabled!: boolean;

  @Field(() => Boolean, { description: 'Off: guest checkout answers 403.' })
  checkoutEnabled!: boolean;

  @Field(() => Boolean, { description: 'Public products show how many are available.' })
  showStockLevels!: boolean;

  @Field(() => [String], { description: 'Origins CORS allows on the storefront routes; empty: any origin.' })
  allowedOrigins!: string[];

  @Field(() => String, { description: 'The country shoppers\' phone numbers are read in (ISO 3166-1 alpha-2).' })
  phoneRegion!: string;

  @Field(() => Int)
  maxItems!: number;

  @Field(() => Int)
  maxQuantity!: number;

  @Field(() => StorefrontLimitsType)
  limits!: StorefrontLimitsType;
}

@InputType()
export class StorefrontLimitsInput {
  @Field(() => Int, { nullable: true })
  checkoutsPerAddress?: number | null;

  @Field(() => Int, { nullable: true })
  checkoutsPerPhone?: number | null;

  @Field(() => Int, { nullable: true })
  readsPerAddress?: number | null;
}

@InputType({ description: 'Only the fields given change; null puts one back to its default.' })
export class StorefrontSettingsInput {
  @Field(() => Boolean, { nullable: true })
  enabled?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  checkoutEnabled?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  showStockLevels?: boolean | null;

  @Field(() => [String], { nullable: true })
  allowedOrigins?: string[] | null;

  @Field(() => String, { nullable: true })
  phoneRegion?: string | null;

  @Field(() => Int, { nullable: true })
  maxItems?: number | null;

  @Field(() => Int, { nullable: true })
  maxQuantity?: number | null;

  @Field(() => StorefrontLimitsInput, { nullable: true })
  limits?: StorefrontLimitsInput | null;
}

@ObjectType('Store')
export class StoreType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: "The store's handle, unique across stores: its storefront is `/v1/storefront/{slug}` (or its id)." })
  slug!: string;

  @Field(() => String, { description: 'ISO 4217 code; every amount of the store is in this currency.' })
  currency!: string;

  @Field(() => String, { nullable: true })
  logoUrl!: string | null;

  @Field(() => StorefrontSettingsType, { description: 'What shoppers without an account may do (the storefront).' })
  storefront!: StorefrontSettingsType;

  @Field(() => StoreRole, { description: "The caller's role in this store." })
  role!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const StorePage = Page(StoreType);
export type StorePage = InstanceType<typeof StorePage>;

@InputType()
export class StoreCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true, description: 'ISO 4217 code; DZD when omitted.' })
  currency?: string | null;

  @Field(() => String, { nullable: true, description: 'The store handle: 3-48 of a-z, 0-9 and inner dashes, unique across stores; derived from the name when omitted.' })
  slug?: string | null;
}

@InputType()
export class StoreUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string;

  @Field(() => String, { nullable: true, description: 'ISO 4217 code; refused (409) once the store has orders.' })
  currency?: string | null;

  @Field(() => String, { nullable: true, description: 'The store handle (3-48 of a-z, 0-9 and inner dashes); taken by another store: 409.' })
  slug?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL; null removes it.' })
  @IsOptional()
  @MaxLength(2000, { message: 'must be at most 2000 characters' })
  @IsHttpUrl()
  logoUrl?: string | null;

  @Field(() => StorefrontSettingsInput, { nullable: true, description: 'Owners and admins; only the fields given change.' })
  storefront?: StorefrontSettingsInput | null;
}

@ObjectType('StoreMember')
export class MemberType {
  @Field(() => ID)
  userId!: string;

  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => StoreRole)
  role!: string;

  @Field(() => Date)
  createdAt!: Date;
}

@InputType()
export class MemberAddInput {
  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;

  @Field(() => StoreRole)
  role!: string;
}

@InputType()
export class MemberUpdateInput {
  @Field(() => StoreRole)
  role!: string;
}
