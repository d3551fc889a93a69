import { Arg, Ctx as GqlCtx, Float, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  CarrierCommuneList,
  CarrierFeeList,
  CarrierSendInput,
  CarrierSendManyInput,
  CarrierSendManyResult,
  CarrierStatisticsType,
  CarrierTestInput,
  CarrierTestResultType,
  CarrierWebhookInput,
  CarrierWebhookType,
  CarrierWilayaFeeList,
  CarrierWilayaList,
  ParcelLabelType,
  ParcelPage,
  ParcelStatus,
  ParcelType,
} from './carrier.types.js';
import * as carrier from './carrier.service.js';
import * as parcels from './parcel.service.js';

@Resolver()
export class CarrierResolver {
  @Query(() => CarrierWilayaList, { description: "The carrier's wilayas (cached 24 h)." })
  @Allow(policies.store('store.read'))
  carrierWilayas(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<CarrierWilayaList> {
    return carrier.listWilayas(ctx, storeId);
  }

  @Query(() => CarrierCommuneList, { description: "The carrier's communes with their stop desks (cached 24 h)." })
  @Allow(policies.store('store.read'))
  carrierCommunes(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('wilaya', () => String, { nullable: true, description: 'A wilaya code; all communes without it.' }) wilaya?: string,
  ): Promise<CarrierCommuneList> {
    return carrier.listCommunes(ctx, storeId, wilaya);
  }

  @Query(() => CarrierFeeList, { description: "Delivery fees from the integration's fromWilaya." })
  @Allow(policies.store('store.read'))
  carrierFees(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('to', () => String, { nullable: true, description: 'Destination wilaya code (required).' }) to?: string,
    @Arg('commune', () => String, { nullable: true }) commune?: string,
    @Arg('weightKg', () => Float, { nullable: true }) weightKg?: number,
    @Arg('provider', () => String, { nullable: true, description: "The carrier the caller means; 503 NOT_CONFIGURED when the store's carrier is another." }) provider?: string,
  ): Promise<CarrierFeeList> {
    return carrier.carrierFees(ctx, storeId, { to, commune, weightKg, provider });
  }

  @Query(() => CarrierWilayaFeeList, { description: "Fees to every deliverable wilaya from the integration's fromWilaya." })
  @Allow(policies.store('store.read'))
  carrierWilayaFees(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('provider', () => String, { nullable: true, description: "The carrier the caller means; 503 NOT_CONFIGURED when the store's carrier is another." }) provider?: string,
  ): Promise<CarrierWilayaFeeList> {
    return carrier.carrierWilayaFees(ctx, storeId, provider);
  }

  @Query(() => CarrierStatisticsType, { description: "The store's parcels counted by status and wilaya." })
  @Allow(policies.store('store.read'))
  carrierStatistics(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('createdAfter', () => String, { nullable: true }) createdAfter?: string,
    @Arg('createdBefore', () => String, { nullable: true }) createdBefore?: string,
    @Arg('provider', () => String, { nullable: true, description: 'Count only the parcels sent with this carrier.' }) provider?: string,
  ): Promise<CarrierStatisticsType> {
    return carrier.carrierStatistics(ctx, storeId, { createdAfter, createdBefore, provider });
  }

  @Query(() => ParcelPage, { description: "The store's parcels, newest first." })
  @Allow(policies.store('store.read'))
  parcels(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('orderId', () => ID, { nullable: true }) orderId?: string,
    @Arg('status', () => ParcelStatus, { nullable: true }) status?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<ParcelPage> {
    return parcels.listParcels(ctx, storeId, { orderId, status, limit, cursor });
  }

  @Query(() => ParcelType)
  @Allow(policies.store('store.read'))
  parcel(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ParcelType> {
    return parcels.getParcel(ctx, storeId, id);
  }

  @Query(() => ParcelLabelType, { description: "The parcel's label from the carrier (501 when the carrier has no label API)." })
  @Allow(policies.store('store.read'))
  parcelLabel(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ParcelLabelType> {
    return parcels.parcelLabel(ctx, storeId, id);
  }

  @Mutation(() => ParcelType, { description: 'Ship an order with the carrier; a retry after a lost answer finds the parcel instead of making another.' })
  @Allow(policies.store('fulfillment.write'))
  carrierSend(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => CarrierSendInput) input: CarrierSendInput): Promise<ParcelType> {
    return parcels.sendParcel(ctx, storeId, input);
  }

  @Mutation(() => CarrierSendManyResult, { description: 'Ship up to 100 orders in one carrier call; per-order failures are listed.' })
  @Allow(policies.store('fulfillment.write'))
  carrierSendMany(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => CarrierSendManyInput) input: CarrierSendManyInput): Promise<CarrierSendManyResult> {
    return parcels.sendParcels(ctx, storeId, input.orderIds);
  }

  @Mutation(() => ParcelType, { description: 'Cancel at the carrier a parcel not yet picked up.' })
  @Allow(policies.store('fulfillment.write'))
  cancelParcel(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<ParcelType> {
    return parcels.cancelParcel(ctx, storeId, id);
  }

  @Mutation(() => CarrierTestResultType, { description: 'Call the carrier with the saved (or given) credentials; the integration becomes active or error.' })
  @Allow(policies.store('integrations.write'))
  carrierTestConnection(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CarrierTestInput, { nullable: true }) input?: CarrierTestInput,
  ): Promise<CarrierTestResultType> {
    return carrier.testConnection(ctx, storeId, input);
  }

  @Query(() => CarrierWebhookType, { description: "The store's end of the carrier webhook (REST: GET /webhook without crc_token)." })
  @Allow(policies.store('integrations.write'))
  carrierWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<CarrierWebhookType> {
    return carrier.getCarrierWebhook(ctx, storeId);
  }

  @Mutation(() => CarrierWebhookType, { description: 'Set the webhook secret (from the carrier dashboard) and active flag; an omitted secret stays.' })
  @Allow(policies.store('integrations.write'))
  putCarrierWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => CarrierWebhookInput) input: CarrierWebhookInput): Promise<CarrierWebhookType> {
    return carrier.saveCarrierWebhook(ctx, storeId, input, 'put');
  }

  @Mutation(() => CarrierWebhookType, { description: 'Change what is given; secret null removes it.' })
  @Allow(policies.store('integrations.write'))
  updateCarrierWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => CarrierWebhookInput) input: CarrierWebhookInput): Promise<CarrierWebhookType> {
    return carrier.saveCarrierWebhook(ctx, storeId, input, 'patch');
  }

  @Mutation(() => Boolean, { description: 'Forget the webhook secret and settings: no carrier event verifies any more.' })
  @Allow(policies.store('integrations.write'))
  async deleteCarrierWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<boolean> {
    await carrier.deleteCarrierWebhook(ctx, storeId);
    return true;
  }
}
