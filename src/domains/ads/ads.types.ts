import { Field, GraphQLISODateTime, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsOptional, MaxLength } from 'class-validator';

@ObjectType('SecretMask', { description: 'A write-only secret as it reads back: never the value.' })
export class SecretMaskType {
  @Field(() => Boolean)
  set!: true;

  @Field(() => String, { nullable: true, description: 'The last four characters of a secret of eight or more.' })
  last4!: string | null;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('AdsAccount', { description: 'The ads platform user whose token the store holds.' })
export class AdsAccountType {
  @Field(() => String)
  id!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;
}

@ObjectType('AdsConversionsApiSettings')
export class AdsConversionsApiSettingsType {
  @Field(() => Boolean)
  enabled!: boolean;

  @Field(() => GraphQLJSONObject, { description: 'created|confirmed|paid|delivered → the platform event name; default created → Lead, confirmed → Purchase.' })
  eventMap!: Record<string, string>;

  @Field(() => String, { nullable: true })
  testEventCode!: string | null;

  @Field(() => SecretMaskType, { nullable: true, description: 'A Conversions API token of its own (else the connection token is used); masked.' })
  accessToken!: SecretMaskType | null;
}

@ObjectType('AdsSettings')
export class AdsSettingsType {
  @Field(() => String, { nullable: true, description: 'The chosen ad account, `act_<id>`.' })
  adAccountId!: string | null;

  @Field(() => String, { nullable: true })
  pixelId!: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 4217; conversion values are sent in it (default: the order currency).' })
  currency!: string | null;

  @Field(() => AdsConversionsApiSettingsType)
  conversionsApi!: AdsConversionsApiSettingsType;
}

@ObjectType('AdsConversionStats')
export class AdsConversionStatsType {
  @Field(() => Int, { description: 'Events the platform accepted in the last 24 h.' })
  sent24h!: number;

  @Field(() => Int, { description: 'Events whose latest attempt in the last 24 h failed (retrying or given up).' })
  failed24h!: number;

  @Field(() => String, { nullable: true })
  lastError!: string | null;
}

@ObjectType('AdsConnection', { description: "The store's ads platform (Meta) connection; the token itself is never shown." })
export class AdsConnectionType {
  @Field(() => String, { description: 'disconnected, connected or expired.' })
  status!: string;

  @Field(() => AdsAccountType, { nullable: true })
  account!: AdsAccountType | null;

  @Field(() => [String])
  grantedScopes!: string[];

  @Field(() => GraphQLISODateTime, { nullable: true })
  tokenExpiresAt!: string | null;

  @Field(() => AdsSettingsType)
  settings!: AdsSettingsType;

  @Field(() => AdsConversionStatsType)
  conversions!: AdsConversionStatsType;
}

@ObjectType('AdAccount')
export class AdAccountType {
  @Field(() => String, { description: '`act_<id>`.' })
  id!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => String, { nullable: true })
  currency!: string | null;

  @Field(() => String, { description: 'active, disabled, unsettled, pending_risk_review, pending_settlement, in_grace_period, pending_closure, closed, ...' })
  status!: string;
}

@ObjectType()
export class AdAccountPage {
  @Field(() => [AdAccountType])
  data!: AdAccountType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class AdsConversionsApiInput {
  @Field(() => Boolean, { nullable: true, description: 'Enabling needs a pixelId.' })
  @IsOptional()
  enabled?: boolean | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Merged into the map; a trigger set to null is no longer sent; null resets the default.' })
  @IsOptional()
  eventMap?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(100)
  testEventCode?: string | null;

  @Field(() => String, { nullable: true, description: 'Write-only; null removes it.' })
  @IsOptional()
  @MaxLength(4096)
  accessToken?: string | null;
}

@InputType({ description: 'A partial update: omitted fields stay, null clears.' })
export class AdsSettingsInput {
  @Field(() => String, { nullable: true, description: 'One of the connected user\'s ad accounts (`act_<id>` or `<id>`); else 400.' })
  @IsOptional()
  @MaxLength(100)
  adAccountId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(100)
  pixelId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  currency?: string | null;

  @Field(() => AdsConversionsApiInput, { nullable: true })
  @IsOptional()
  conversionsApi?: AdsConversionsApiInput | null;
}

@InputType()
export class AdsOAuthStartInput {
  @Field(() => String, { nullable: true, description: 'Where the callback sends the merchant back: an http(s) URL on an allowed origin (SOUK_RETURN_URL_ORIGINS); default the dashboard.' })
  @IsOptional()
  returnUrl?: string | null;
}

@ObjectType('AdsOAuthStart')
export class AdsOAuthStartType {
  @Field(() => String)
  authorizationUrl!: string;

  @Field(() => String, { description: 'Single-use, valid 10 minutes.' })
  state!: string;

  @Field(() => GraphQLISODateTime)
  expiresAt!: string;
}
