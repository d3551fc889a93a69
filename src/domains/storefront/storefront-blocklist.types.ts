import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { IsOptional, Length, MaxLength } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { Page } from '../../lib/pagination.js';

export const BLOCK_KINDS = ['phone', 'ip'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];
export const StorefrontBlockKind = graphqlEnum('StorefrontBlockKind', BLOCK_KINDS, 'A phone number, or an IP address or range (v4 or v6).');

@ObjectType('StorefrontBlocklistEntry', { description: "An entry of a store's storefront blocklist: checkouts matching it are refused." })
export class StorefrontBlockType {
  @Field(() => ID)
  id!: string;

  @Field(() => StorefrontBlockKind)
  kind!: BlockKind;

  @Field(() => String, { description: 'Normalised: E.164 for a phone, a CIDR for an IP (a single address is a /32 or /128).' })
  value!: string;

  @Field(() => String, { nullable: true })
  note!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;
}

export const StorefrontBlockPage = Page(StorefrontBlockType);

@InputType()
export class StorefrontBlockInput {
  @Field(() => StorefrontBlockKind)
  kind!: BlockKind;

  @Field(() => String, { description: "A phone (read in the store's phoneRegion), or an IP address or CIDR range (v4 or v6)." })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  value!: string;

  @Field(() => String, { nullable: true, description: 'At most 500 characters.' })
  @IsOptional()
  @MaxLength(500, { message: 'must be at most 500 characters' })
  note?: string | null;
}
