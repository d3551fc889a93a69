import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsIn, Length, Matches, MaxLength } from 'class-validator';
import { SCOPE_NAMES } from '../auth/scopes.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Page } from '../../lib/pagination.js';
import { IsHttpUrl, NameText } from '../../core/input.js';

const SCOPE_MESSAGE = `each must be one of ${SCOPE_NAMES.join(', ')}`;
/** RFC 7636: 43 to 128 characters of the unreserved set. */
const PKCE_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

@ObjectType('App', { description: 'An OAuth app; its id is the client id.' })
export class AppType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true })
  homepageUrl!: string | null;

  @Field(() => [String])
  redirectUris!: string[];

  @Field(() => [String], { description: 'The most an authorization may grant.' })
  scopes!: string[];

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('AppWithSecret', { description: 'An app and its client secret, shown only on create and regenerate.' })
export class AppWithSecretType extends AppType {
  @Field(() => String)
  clientSecret!: string;
}

export const AppPage = Page(AppType);
export type AppPage = InstanceType<typeof AppPage>;

@InputType()
export class AppCreateInput {
  @Field(() => String)
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true })
  @MaxLength(1000)
  description?: string;

  @Field(() => String, { nullable: true })
  @IsHttpUrl()
  @MaxLength(2000)
  homepageUrl?: string;

  @Field(() => [String], { description: 'Exact URIs an authorization may redirect to.' })
  @ArrayMinSize(1, { message: 'must list at least one URI' })
  @ArrayMaxSize(10, { message: 'must list at most 10 URIs' })
  @IsHttpUrl({ each: true, message: 'each must be an http(s) URL' })
  @MaxLength(2000, { each: true })
  redirectUris!: string[];

  @Field(() => [String])
  @ArrayMaxSize(SCOPE_NAMES.length)
  @IsIn(SCOPE_NAMES, { each: true, message: SCOPE_MESSAGE })
  scopes!: string[];
}

@InputType({ description: 'Fields to change; omitted ones stay.' })
export class AppUpdateInput {
  @Field(() => String, { nullable: true })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @NameText()
  name?: string;

  @Field(() => String, { nullable: true })
  @MaxLength(1000)
  description?: string;

  @Field(() => String, { nullable: true })
  @IsHttpUrl()
  @MaxLength(2000)
  homepageUrl?: string;

  @Field(() => [String], { nullable: true })
  @ArrayMinSize(1, { message: 'must list at least one URI' })
  @ArrayMaxSize(10, { message: 'must list at most 10 URIs' })
  @IsHttpUrl({ each: true, message: 'each must be an http(s) URL' })
  @MaxLength(2000, { each: true })
  redirectUris?: string[];

  @Field(() => [String], { nullable: true })
  @ArrayMaxSize(SCOPE_NAMES.length)
  @IsIn(SCOPE_NAMES, { each: true, message: SCOPE_MESSAGE })
  scopes?: string[];
}

@InputType({ description: 'The signed-in user consents to give the app these scopes.' })
export class AuthorizationCodeInput {
  @Field(() => ID)
  @MaxLength(100)
  appId!: string;

  @Field(() => String)
  @MaxLength(2000)
  redirectUri!: string;

  @Field(() => [String])
  @ArrayMinSize(1, { message: 'must list at least one scope' })
  @ArrayMaxSize(SCOPE_NAMES.length)
  @IsIn(SCOPE_NAMES, { each: true, message: SCOPE_MESSAGE })
  scopes!: string[];

  @Field(() => String, { nullable: true, description: 'Opaque; handed back unchanged.' })
  @MaxLength(500)
  state?: string;

  @Field(() => String, { description: 'BASE64URL(SHA256(code_verifier)).' })
  @Matches(PKCE_PATTERN, { message: 'must be 43 to 128 characters of [A-Za-z0-9-._~]' })
  codeChallenge!: string;

  @Field(() => String, { description: 'Only S256.' })
  @IsIn(['S256'], { message: 'must be S256' })
  codeChallengeMethod!: string;
}

@ObjectType('AuthorizationCode')
export class AuthorizationCodeType {
  @Field(() => String, { description: 'Single use, valid 10 minutes.' })
  code!: string;

  @Field(() => String)
  redirectUri!: string;

  @Field(() => String, { nullable: true })
  state!: string | null;

  @Field(() => Date)
  expiresAt!: Date;
}

@InputType()
export class CodeConsumeInput {
  @Field(() => String)
  @MaxLength(200)
  code!: string;

  @Field(() => String)
  @MaxLength(100)
  clientId!: string;

  @Field(() => String)
  @MaxLength(200)
  clientSecret!: string;

  @Field(() => String)
  @MaxLength(2000)
  redirectUri!: string;

  @Field(() => String)
  @Matches(PKCE_PATTERN, { message: 'must be 43 to 128 characters of [A-Za-z0-9-._~]' })
  codeVerifier!: string;
}

@ObjectType('OAuthToken')
export class OAuthTokenType {
  @Field(() => String, { description: 'Shown only here.' })
  accessToken!: string;

  @Field(() => String)
  tokenType!: string;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => Int, { description: 'Seconds until the token expires.' })
  expiresIn!: number;
}

@InputType()
export class CodeInspectInput {
  @Field(() => String)
  @MaxLength(200)
  code!: string;
}

@ObjectType('AppRef')
export class AppRefType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true })
  homepageUrl!: string | null;
}

@ObjectType('UserRef')
export class UserRefType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;
}

@ObjectType('AuthorizationCodeInfo')
export class CodeInspectionType {
  @Field(() => UserRefType, { description: 'Who granted it.' })
  user!: UserRefType;

  @Field(() => AppRefType)
  app!: AppRefType;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => String)
  redirectUri!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Boolean)
  expired!: boolean;

  @Field(() => Boolean)
  consumed!: boolean;
}

@ObjectType('ConnectedApp', { description: 'An app holding live tokens of the caller.' })
export class ConnectedAppType {
  @Field(() => AppRefType)
  app!: AppRefType;

  @Field(() => [String], { description: 'Every scope its live tokens carry.' })
  scopes!: string[];

  @Field(() => [ID], { description: 'Revoke one with DELETE /v1/users/auth/tokens/{id}, or all with the app id.' })
  tokenIds!: string[];

  @Field(() => Date)
  connectedAt!: Date;

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;
}

@ObjectType('MyAppDataSet', { description: "What a user sees of an app's data about them: never the private part." })
export class MyAppDataSetType {
  @Field(() => GraphQLJSONObject, { description: 'The user and the app read and write it.' })
  public!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { description: 'The app (or its owner) writes it; the user only reads it.' })
  protected!: Record<string, unknown>;
}

@ObjectType('AppUserDataSet', { description: "An app's data about one of its connected users, by visibility." })
export class AppUserDataSetType extends MyAppDataSetType {
  @Field(() => GraphQLJSONObject, { description: 'Only the app itself and its owner read and write it.' })
  private!: Record<string, unknown>;
}

@InputType({ description: 'The parts to replace, each a JSON object of at most 64 KiB; an absent (or null) part stays as it is.' })
export class AppUserDataSetInput {
  @Field(() => GraphQLJSONObject, { nullable: true })
  public?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  private?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  protected?: Record<string, unknown> | null;
}
