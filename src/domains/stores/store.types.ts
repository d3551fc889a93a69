import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { IsEmail, IsOptional, Length, MaxLength } from 'class-validator';
import { ROLES } from '../../core/policy.js';
import { graphqlEnum } from '../../core/enums.js';
import { Page } from '../../lib/pagination.js';
import { NameText } from '../../core/input.js';

export const StoreRole = graphqlEnum('StoreRole', ROLES, 'A member\'s role in a store, from most to least: owner, admin, editor, viewer.');

@ObjectType('Store')
export class StoreType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'ISO 4217 code; every amount of the store is in this currency.' })
  currency!: string;

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
