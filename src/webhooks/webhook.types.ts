import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, IsOptional, Length, MaxLength } from 'class-validator';
import { graphqlEnum } from '../core/enums.js';
import { WebhookEvent } from '../events/names.js';
import { NameText } from '../core/input.js';

export const DeliveryStatus = graphqlEnum('DeliveryStatus', ['success', 'failed'] as const, '`success` when the receiver answered 2xx or 3xx, else `failed`.');

@ObjectType('Webhook', { description: 'A subscriber endpoint of a store; its secret is never shown here.' })
export class WebhookType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  url!: string;

  @Field(() => [WebhookEvent], { description: 'The events it receives.' })
  events!: string[];

  @Field(() => GraphQLJSONObject)
  headers!: Record<string, string>;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => Boolean)
  active!: boolean;

  @Field(() => Boolean)
  hasSecret!: boolean;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('WebhookWithSecret', { description: 'A webhook with its plaintext secret: on create and on rotation only.' })
export class WebhookWithSecretType extends WebhookType {
  @Field(() => String, { nullable: true, description: 'Present right after create or rotateSecret; null otherwise.' })
  secret!: string | null;
}

@InputType()
export class WebhookCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String)
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url!: string;

  @Field(() => [String], { nullable: true, description: 'Omitted: all six events. Legacy spellings are accepted.' })
  @IsOptional()
  @ArrayMaxSize(50, { message: 'must hold at most 50 names' })
  events?: string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  headers?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  metadata?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;
}

@InputType()
export class WebhookUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(50, { message: 'must hold at most 50 names' })
  events?: string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  headers?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  metadata?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Mint a fresh secret; the old one stops working at once.' })
  @IsOptional()
  rotateSecret?: boolean | null;
}

@ObjectType('DeliveryTimings', { description: "Per-phase durations of an attempt in ms (null where a phase did not happen)." })
export class DeliveryTimingsType {
  @Field(() => Int, { nullable: true })
  dns!: number | null;

  @Field(() => Int, { nullable: true })
  connect!: number | null;

  @Field(() => Int, { nullable: true })
  tls!: number | null;

  @Field(() => Int, { nullable: true })
  firstByte!: number | null;

  @Field(() => Int)
  total!: number;
}

@ObjectType('WebhookDelivery', { description: 'One delivery attempt: a test result or a history entry.' })
export class DeliveryType {
  @Field(() => ID, { description: 'The X-Svc-Delivery UUID.' })
  id!: string;

  @Field(() => ID, { nullable: true })
  webhookId!: string | null;

  @Field(() => WebhookEvent)
  event!: string;

  @Field(() => Boolean)
  test!: boolean;

  @Field(() => String)
  url!: string;

  @Field(() => DeliveryStatus)
  status!: string;

  @Field(() => Int, { nullable: true })
  statusCode!: number | null;

  @Field(() => Int)
  responseTimeMs!: number;

  @Field(() => String, { nullable: true, description: 'The first 1,024 characters.' })
  responseBody!: string | null;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => DeliveryTimingsType, { nullable: true, description: 'Null for attempts recorded before timings were kept.' })
  timings!: DeliveryTimingsType | null;

  @Field(() => ID, { nullable: true, description: 'The history entry this delivery sent again.' })
  redeliveryOf!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;
}

@ObjectType('WebhookUrlTestResult')
export class UrlTestResultType extends DeliveryType {
  @Field(() => String, { nullable: true, description: 'The secret minted for this test when none was given.' })
  secret!: string | null;
}

@InputType()
export class WebhookTestInput {
  @Field(() => String, { nullable: true, description: 'Default orderCreated.' })
  @IsOptional()
  event?: string | null;
}

@InputType()
export class WebhookUrlTestInput {
  @Field(() => String)
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  event?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  headers?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  secret?: string | null;
}

@InputType()
export class WebhookSendInput {
  @Field(() => String)
  event!: string;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  orderId?: string | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  productId?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  data?: Record<string, unknown> | null;

  @Field(() => [ID], { nullable: true, description: 'Only these webhooks (still: active and subscribed).' })
  @IsOptional()
  @ArrayMaxSize(10, { message: 'must hold at most 10 ids' })
  webhookIds?: string[] | null;
}

@ObjectType('WebhookSendItem')
export class SendItemType {
  @Field(() => ID)
  webhookId!: string;

  @Field(() => ID)
  deliveryId!: string;
}

