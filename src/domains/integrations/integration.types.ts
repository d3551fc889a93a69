import { Field, GraphQLISODateTime, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsOptional } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';

export const IntegrationStatus = graphqlEnum('IntegrationStatus', ['unverified', 'active', 'error', 'disconnected'] as const, '`unverified` until a provider call succeeds (`active`) or fails (`error`); `disconnected` once its access is revoked.');

@ObjectType('Integration', { description: 'One integration of a store; secrets are write-only and read back masked.' })
export class IntegrationType {
  @Field(() => String)
  key!: string;

  @Field(() => String, { description: 'carrier, ads-platform, platform-connector, payments or custom.' })
  kind!: string;

  @Field(() => String, { nullable: true })
  provider!: string | null;

  @Field(() => Boolean)
  enabled!: boolean;

  @Field(() => IntegrationStatus)
  status!: string;

  @Field(() => GraphQLJSONObject)
  config!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { description: 'name → {set: true, last4, updatedAt}; never the secret itself.' })
  secrets!: Record<string, { set: true; last4: string | null; updatedAt: string }>;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true })
  lastSuccessAt!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class IntegrationList {
  @Field(() => [IntegrationType])
  data!: IntegrationType[];
}

@ObjectType({ description: 'The integration after a PUT, and whether the PUT created it.' })
export class IntegrationPutResult {
  @Field(() => Boolean)
  created!: boolean;

  @Field(() => IntegrationType)
  integration!: IntegrationType;
}

@InputType()
export class IntegrationPutInput {
  @Field(() => String, { nullable: true, description: "Typed keys: one of the kind's providers (default: its first)." })
  @IsOptional()
  provider?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Default true.' })
  @IsOptional()
  enabled?: boolean | null;

  @Field(() => GraphQLJSONObject, { description: "Validated against the key's schema; custom keys: any JSON object up to 16 KiB." })
  config!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'name → value; replaces the stored secrets when given, keeps them when omitted.' })
  @IsOptional()
  secrets?: Record<string, unknown> | null;
}

@InputType()
export class IntegrationPatchInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  provider?: string | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  enabled?: boolean | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'An RFC 7396 merge patch of the config.' })
  @IsOptional()
  config?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'name → value sets a secret, name → null removes it.' })
  @IsOptional()
  secrets?: Record<string, unknown> | null;
}
