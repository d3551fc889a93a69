import { createUnionType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { IsEmail, Length, MaxLength, MinLength } from 'class-validator';
import { UserType } from './user.types.js';
import { Page } from '../../lib/pagination.js';
import { graphqlEnum } from '../../core/enums.js';
import { NameText } from '../../core/input.js';

@InputType()
export class SignupInput {
  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;

  @Field(() => String)
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password!: string;

  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;
}

@InputType()
export class SigninInput {
  @Field(() => String)
  @MaxLength(254)
  email!: string;

  @Field(() => String)
  @MaxLength(256)
  password!: string;
}

@ObjectType()
export class AuthPayload {
  @Field(() => String, { description: 'Opaque bearer token; shown only here.' })
  token!: string;

  @Field(() => UserType)
  user!: UserType;
}

@InputType({ description: 'Fields to change; a new password needs currentPassword.' })
export class MeUpdateInput {
  @Field(() => String, { nullable: true })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string;

  @Field(() => String, { nullable: true, description: 'A new address must be verified again.' })
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email?: string;

  @Field(() => String, { nullable: true, description: 'Signs out every other token.' })
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password?: string;

  @Field(() => String, { nullable: true })
  @MaxLength(256)
  currentPassword?: string;
}

@ObjectType('TokenApp')
export class TokenAppType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;
}

export const TokenKind = graphqlEnum('TokenKind', ['session', 'oauth'] as const, 'A sign-in session, or an OAuth app token.');

@ObjectType('Token', { description: 'A bearer token of the caller; never the token itself.' })
export class TokenType {
  @Field(() => ID)
  id!: string;

  @Field(() => TokenKind)
  kind!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => [String], { nullable: true, description: 'Null for sessions (everything the user may do).' })
  scopes!: string[] | null;

  @Field(() => TokenAppType, { nullable: true })
  app!: TokenAppType | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Boolean, { description: 'The token of this request.' })
  current!: boolean;

  @Field(() => String, { description: 'Last four characters, to tell tokens apart.' })
  last4!: string;
}

export const TokenPage = Page(TokenType);
export type TokenPage = InstanceType<typeof TokenPage>;

@InputType()
export class RevokeAllInput {
  @Field(() => Boolean, { nullable: true, description: 'Revoke the token of this request too.' })
  includeCurrent?: boolean;
}

@ObjectType()
export class RevokeAllResult {
  @Field(() => Int)
  revoked!: number;
}

@InputType()
export class TransferInput {
  @Field(() => String, { nullable: true, description: 'Given: exchange it for a session. Omitted: issue a code (signed in).' })
  @MaxLength(200)
  code?: string;
}

@ObjectType()
export class TransferCode {
  @Field(() => String, { description: 'Single use, valid 5 minutes.' })
  code!: string;

  @Field(() => Date)
  expiresAt!: Date;
}

export const TransferResult = createUnionType({
  name: 'TransferResult',
  types: () => [TransferCode, AuthPayload] as const,
  resolveType: (value) => ('code' in value ? TransferCode : AuthPayload),
});

@ObjectType({ description: 'A queued action.' })
export class Accepted {
  @Field(() => Boolean)
  accepted!: boolean;

  @Field(() => String)
  message!: string;
}

@InputType()
export class TokenInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  token!: string;
}

@InputType()
export class ResetRequestInput {
  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;
}

@ObjectType()
export class ResetTokenStatus {
  @Field(() => Boolean)
  valid!: boolean;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;
}

@InputType()
export class ResetConfirmInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  token!: string;

  @Field(() => String)
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password!: string;
}

@ObjectType()
export class ResetConfirmResult {
  @Field(() => Boolean)
  passwordReset!: boolean;

  @Field(() => Int, { description: 'Tokens signed out.' })
  revokedTokens!: number;
}
