import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  PdfFile,
  PurchaseOrderBatchCancelInput,
  PurchaseOrderBatchResult,
  PurchaseOrderBatchSendInput,
  PurchaseOrderCancelInput,
  PurchaseOrderCreateInput,
  PurchaseOrderIdsInput,
  PurchaseOrderPage,
  PurchaseOrderSendInput,
  PurchaseOrderStatus,
  PurchaseOrderStatusInput,
  PurchaseOrderType,
  PurchaseOrderUpdateInput,
} from './purchase-order.types.js';
import * as purchaseOrders from './purchase-order.service.js';

const READ = policies.store('finance.read');
const WRITE = policies.store('finance.write');

@Resolver()
export class PurchaseOrderResolver {
  @Query(() => PurchaseOrderPage, { description: "A store's purchase orders, newest first, filtered." })
  @Allow(READ)
  purchaseOrders(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => PurchaseOrderStatus, { nullable: true }) status?: string,
    @Arg('q', () => String, { nullable: true, description: 'The number (PO-000042 or 42) or part of the supplier name.' }) q?: string,
    @Arg('warehouseId', () => ID, { nullable: true }) warehouseId?: string,
    @Arg('createdAfter', () => String, { nullable: true }) createdAfter?: string,
    @Arg('createdBefore', () => String, { nullable: true }) createdBefore?: string,
  ): Promise<PurchaseOrderPage> {
    return purchaseOrders.listPurchaseOrders(ctx, storeId, { limit, cursor, status, q, warehouseId, createdAfter, createdBefore });
  }

  @Query(() => PurchaseOrderType)
  @Allow(READ)
  purchaseOrder(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<PurchaseOrderType> {
    return purchaseOrders.getPurchaseOrder(ctx, storeId, id);
  }

  @Query(() => PdfFile, { description: 'The PO as a PDF (base64); the same PO version gives the same bytes.' })
  @Allow(READ)
  purchaseOrderPdf(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('download', () => String, { nullable: true, description: '1 or true: disposition attachment.' }) download?: string,
  ): Promise<PdfFile> {
    return purchaseOrders.purchaseOrderPdf(ctx, storeId, id, download);
  }

  @Query(() => PdfFile, { description: 'Several POs merged in one PDF, all or nothing.' })
  @Allow(READ)
  purchaseOrdersPdf(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => PurchaseOrderIdsInput) input: PurchaseOrderIdsInput,
    @Arg('download', () => String, { nullable: true }) download?: string,
  ): Promise<PdfFile> {
    return purchaseOrders.purchaseOrdersPdf(ctx, storeId, input.ids, download);
  }

  @Mutation(() => PurchaseOrderType, { description: 'A new draft, numbered PO-000001, PO-000002, ... per store.' })
  @Allow(WRITE)
  createPurchaseOrder(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => PurchaseOrderCreateInput) input: PurchaseOrderCreateInput): Promise<PurchaseOrderType> {
    return purchaseOrders.createPurchaseOrder(ctx, storeId, input);
  }

  @Mutation(() => PurchaseOrderType, { description: 'Partial update; items and currency only in draft.' })
  @Allow(WRITE)
  updatePurchaseOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => PurchaseOrderUpdateInput) input: PurchaseOrderUpdateInput,
  ): Promise<PurchaseOrderType> {
    return purchaseOrders.updatePurchaseOrder(ctx, storeId, id, input);
  }

  @Mutation(() => PurchaseOrderType, { description: 'sent, draft, or receive (partial/received) into a warehouse.' })
  @Allow(WRITE)
  setPurchaseOrderStatus(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => PurchaseOrderStatusInput) input: PurchaseOrderStatusInput,
  ): Promise<PurchaseOrderType> {
    return purchaseOrders.setPurchaseOrderStatus(ctx, storeId, id, input);
  }

  @Mutation(() => PurchaseOrderType, { description: 'Already cancelled: unchanged; received: 409.' })
  @Allow(WRITE)
  cancelPurchaseOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => PurchaseOrderCancelInput, { nullable: true }) input?: PurchaseOrderCancelInput,
  ): Promise<PurchaseOrderType> {
    return purchaseOrders.cancelPurchaseOrder(ctx, storeId, id, input?.reason);
  }

  @Mutation(() => PurchaseOrderType, { description: 'Queues a mail with the PDF attached; the outcome lands in sends.' })
  @Allow(WRITE)
  sendPurchaseOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => PurchaseOrderSendInput, { nullable: true }) input?: PurchaseOrderSendInput,
  ): Promise<PurchaseOrderType> {
    return purchaseOrders.sendPurchaseOrder(ctx, storeId, id, input ?? {});
  }

  @Mutation(() => PurchaseOrderBatchResult)
  @Allow(WRITE)
  batchCancelPurchaseOrders(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => PurchaseOrderBatchCancelInput) input: PurchaseOrderBatchCancelInput,
  ): Promise<PurchaseOrderBatchResult> {
    return purchaseOrders.batchCancelPurchaseOrders(ctx, storeId, input);
  }

  @Mutation(() => PurchaseOrderBatchResult)
  @Allow(WRITE)
  batchSendPurchaseOrders(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => PurchaseOrderBatchSendInput) input: PurchaseOrderBatchSendInput,
  ): Promise<PurchaseOrderBatchResult> {
    return purchaseOrders.batchSendPurchaseOrders(ctx, storeId, input);
  }
}
