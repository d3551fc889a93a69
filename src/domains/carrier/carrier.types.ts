import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, ArrayMinSize, IsOptional, Length, MaxLength } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { PARCEL_STATUSES } from '../integrations/integration.kinds.js';
import { NameText } from '../../core/input.js';

export const ParcelStatus = graphqlEnum('ParcelStatus', PARCEL_STATUSES, "A parcel's state in Souk's words, whatever the carrier calls it (its own text is rawStatus).");
export const ParcelEventSource = graphqlEnum('ParcelEventSource', ['send', 'webhook', 'poll', 'cancel'] as const, 'What brought the news: the send itself, a carrier webhook, a poll, or a cancel.');
export const CarrierDeliveryType = graphqlEnum('CarrierDeliveryType', ['home', 'stopdesk'] as const, 'To the door, or to a carrier stop desk.');

@ObjectType('CarrierWilaya')
export class CarrierWilayaType {
  @Field(() => String, { description: 'Wilaya code, e.g. "16".' })
  code!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Boolean)
  deliverable!: boolean;
}

@ObjectType()
export class CarrierWilayaList {
  @Field(() => [CarrierWilayaType])
  data!: CarrierWilayaType[];
}

@ObjectType('CarrierStopDesk')
export class CarrierStopDeskType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  address!: string | null;
}

@ObjectType('CarrierCommune')
export class CarrierCommuneType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  wilayaCode!: string;

  @Field(() => Boolean)
  deliverable!: boolean;

  @Field(() => [CarrierStopDeskType])
  stopDesks!: CarrierStopDeskType[];
}

@ObjectType()
export class CarrierCommuneList {
  @Field(() => [CarrierCommuneType])
  data!: CarrierCommuneType[];
}

@ObjectType('CarrierFee')
export class CarrierFeeType {
  @Field(() => ID)
  communeId!: string;

  @Field(() => Float, { nullable: true, description: 'Home delivery, major units of DZD; null: not delivered home.' })
  home!: number | null;

  @Field(() => Float, { nullable: true, description: 'Stop desk delivery; null: no stop desk there.' })
  stopDesk!: number | null;
}

@ObjectType('CarrierQuote', { description: "The fee for one commune and weight, oversize included." })
export class CarrierQuoteType extends CarrierFeeType {
  @Field(() => Float)
  weightKg!: number;

  @Field(() => Float)
  oversizeFee!: number;
}

@ObjectType()
export class CarrierFeeList {
  @Field(() => [CarrierFeeType])
  data!: CarrierFeeType[];

  @Field(() => CarrierQuoteType, { nullable: true, description: 'Set when a commune is given.' })
  quote!: CarrierQuoteType | null;
}

@ObjectType('CarrierWilayaFee', { description: "A wilaya's fees: the carrier's own per-wilaya price, or the lowest of its communes'." })
export class CarrierWilayaFeeType {
  @Field(() => String, { description: 'Wilaya code, e.g. "16".' })
  wilayaCode!: string;

  @Field(() => Float, { nullable: true, description: 'Home delivery, major units of DZD; null: not delivered home.' })
  home!: number | null;

  @Field(() => Float, { nullable: true, description: 'Stop desk delivery; null: no stop desk there.' })
  stopDesk!: number | null;
}

@ObjectType()
export class CarrierWilayaFeeList {
  @Field(() => [CarrierWilayaFeeType], { description: 'Deliverable wilayas, in code order.' })
  data!: CarrierWilayaFeeType[];
}

@ObjectType('ParcelLabel', { description: "A parcel's label: the carrier's link, or the PDF it answered with." })
export class ParcelLabelType {
  @Field(() => String, { nullable: true, description: "The carrier's label link (Yalidine, Zimou)." })
  url!: string | null;

  @Field(() => String, { nullable: true, description: 'application/pdf when `data` is set.' })
  contentType!: string | null;

  @Field(() => String, { nullable: true, description: 'The PDF, base64 (Ecotrack, Noest).' })
  data!: string | null;
}

@ObjectType('CarrierStatistics')
export class CarrierStatisticsType {
  @Field(() => GraphQLJSONObject, { description: 'parcel status → count.' })
  byStatus!: Record<string, number>;

  @Field(() => Float, { nullable: true, description: 'delivered / parcels sent (neither creating nor cancelled); null when none.' })
  deliveredRate!: number | null;

  @Field(() => Float, { nullable: true, description: '(returning + returned) / parcels sent; null when none.' })
  returnRate!: number | null;

  @Field(() => Float, { description: 'Cash on delivery of delivered parcels, major units.' })
  codCollected!: number;

  @Field(() => GraphQLJSONObject, { description: 'wilaya code → {total, delivered, returned}.' })
  byWilaya!: Record<string, { total: number; delivered: number; returned: number }>;
}

@ObjectType('ParcelHistoryEntry')
export class ParcelHistoryEntryType {
  @Field(() => ParcelStatus)
  status!: string;

  @Field(() => String, { nullable: true })
  rawStatus!: string | null;

  @Field(() => String, { nullable: true })
  reason!: string | null;

  @Field(() => GraphQLISODateTime)
  occurredAt!: string;

  @Field(() => ParcelEventSource)
  source!: string;
}

@ObjectType('Parcel')
export class ParcelType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  orderId!: string;

  @Field(() => String)
  provider!: string;

  @Field(() => String, { nullable: true })
  tracking!: string | null;

  @Field(() => ParcelStatus)
  status!: string;

  @Field(() => String, { nullable: true, description: "The carrier's own status text." })
  rawStatus!: string | null;

  @Field(() => String, { nullable: true })
  labelUrl!: string | null;

  @Field(() => CarrierDeliveryType)
  deliveryType!: string;

  @Field(() => ID, { nullable: true })
  stopDeskId!: string | null;

  @Field(() => Float, { description: 'Cash to collect, major units.' })
  codAmount!: number;

  @Field(() => Float, { nullable: true })
  deliveryFee!: number | null;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true, description: "The carrier's remittance of the cash: not_ready, ready, receivable or paid." })
  paymentStatus!: string | null;

  @Field(() => [ParcelHistoryEntryType])
  history!: ParcelHistoryEntryType[];

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class ParcelPage {
  @Field(() => [ParcelType])
  data!: ParcelType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class CarrierRecipientInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(6, 50, { message: 'must be 6 to 50 characters' })
  phone?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 500, { message: 'must be 1 to 500 characters' })
  address?: string | null;

  @Field(() => String, { nullable: true, description: 'Wilaya code, "1" to "69".' })
  @IsOptional()
  @MaxLength(2, { message: 'must be a wilaya code' })
  wilayaCode?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(20, { message: 'must be at most 20 characters' })
  communeId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  communeName?: string | null;
}

@InputType()
export class CarrierSendInput {
  @Field(() => ID)
  orderId!: string;

  @Field(() => CarrierDeliveryType, { nullable: true, description: "Default from the order's shippingType (desk → stopdesk)." })
  @IsOptional()
  deliveryType?: string | null;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  @MaxLength(20, { message: 'must be at most 20 characters' })
  stopDeskId?: string | null;

  @Field(() => CarrierRecipientInput, { nullable: true, description: "Overrides the order's customer and shipping address." })
  @IsOptional()
  recipient?: CarrierRecipientInput | null;

  @Field(() => String, { nullable: true, description: "The carrier the caller means (yalidine, ecotrack, ...); 503 NOT_CONFIGURED when the store's carrier is another." })
  @IsOptional()
  @MaxLength(40, { message: 'must be at most 40 characters' })
  provider?: string | null;
}

@InputType()
export class CarrierSendManyInput {
  @Field(() => [ID])
  @ArrayMinSize(1, { message: 'must hold 1 to 100 ids' })
  @ArrayMaxSize(100, { message: 'must hold 1 to 100 ids' })
  orderIds!: string[];
}

@ObjectType('CarrierSendFailure')
export class CarrierSendFailureType {
  @Field(() => ID)
  orderId!: string;

  @Field(() => String)
  code!: string;

  @Field(() => String)
  message!: string;
}

@ObjectType()
export class CarrierSendManyResult {
  @Field(() => [ParcelType])
  data!: ParcelType[];

  @Field(() => [CarrierSendFailureType])
  failed!: CarrierSendFailureType[];
}

@InputType({ description: 'Credentials to test in place of the saved ones; settings not given are the saved ones.' })
export class CarrierCredentialsInput {
  @Field(() => String, { nullable: true, description: 'Yalidine API ID.' })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  apiId?: string | null;

  @Field(() => String)
  @Length(1, 4096, { message: 'must be 1 to 4096 characters' })
  apiToken!: string;

  @Field(() => String, { nullable: true, description: 'Procolis key (its `key` header).' })
  @IsOptional()
  @Length(1, 4096, { message: 'must be 1 to 4096 characters' })
  apiKey?: string | null;

  @Field(() => String, { nullable: true, description: "Ecotrack or EcoManager address (the server's allow-list applies)." })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  baseUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'Noest user GUID.' })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  userGuid?: string | null;
}

@InputType()
export class CarrierTestInput {
  @Field(() => CarrierCredentialsInput, { nullable: true, description: 'Test these instead of the saved ones (the saved status does not change).' })
  @IsOptional()
  credentials?: CarrierCredentialsInput | null;
}

@ObjectType('CarrierQuota')
export class CarrierQuotaType {
  @Field(() => Int, { nullable: true })
  second!: number | null;

  @Field(() => Int, { nullable: true })
  minute!: number | null;

  @Field(() => Int, { nullable: true })
  hour!: number | null;

  @Field(() => Int, { nullable: true })
  day!: number | null;
}

@ObjectType('CarrierTestResult')
export class CarrierTestResultType {
  @Field(() => Boolean)
  ok!: boolean;

  @Field(() => Int)
  latencyMs!: number;

  @Field(() => CarrierQuotaType, { nullable: true, description: 'Requests left, as the carrier reported them.' })
  quota!: CarrierQuotaType | null;

  @Field(() => String, { nullable: true })
  error!: string | null;
}

@ObjectType('CarrierWebhook', { description: "The store's end of the carrier's webhook; the secret is never shown." })
export class CarrierWebhookType {
  @Field(() => String, { description: 'Give this URL to the carrier (Yalidine: Webhooks dashboard).' })
  url!: string;

  @Field(() => Boolean)
  active!: boolean;

  @Field(() => Boolean)
  hasSecret!: boolean;

  @Field(() => GraphQLISODateTime, { nullable: true })
  lastEventAt!: string | null;
}

@InputType()
export class CarrierWebhookInput {
  @Field(() => String, { nullable: true, description: "The webhook's secret key from the carrier's dashboard; PATCH null removes it." })
  @IsOptional()
  @Length(8, 512, { message: 'must be 8 to 512 characters' })
  secret?: string | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  active?: boolean | null;
}
