import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { SupplierBatchDeleteInput, SupplierBatchResult, SupplierCreateInput, SupplierRecordPage, SupplierRecordType, SupplierUpdateInput } from './supplier.types.js';
import * as suppliers from './supplier.service.js';
import { PurchaseReceiptCreateInput, PurchaseReceiptPage, PurchaseReceiptStatus, PurchaseReceiptType } from './purchase-receipt.types.js';
import * as receipts from './purchase-receipt.service.js';

/** Suppliers and purchase receipts: authorized as purchase orders are. */
const READ = policies.store('finance.read');
const WRITE = policies.store('finance.write');

@Resolver()
export class SupplierResolver {
  @Query(() => SupplierRecordPage, { description: "A store's suppliers, newest first." })
  @Allow(READ)
  suppliers(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('q', () => String, { nullable: true, description: 'Part of the name, code, email or phone.' }) q?: string,
  ): Promise<SupplierRecordPage> {
    return suppliers.listSuppliers(ctx, storeId, { limit, cursor, q });
  }

  @Query(() => SupplierRecordType)
  @Allow(READ)
  supplier(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<SupplierRecordType> {
    return suppliers.getSupplier(ctx, storeId, id);
  }

  @Mutation(() => SupplierRecordType)
  @Allow(WRITE)
  createSupplier(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => SupplierCreateInput) input: SupplierCreateInput): Promise<SupplierRecordType> {
    return suppliers.createSupplier(ctx, storeId, input);
  }

  @Mutation(() => SupplierRecordType, { description: 'Partial update; null clears a field. Purchase orders keep their own copy.' })
  @Allow(WRITE)
  updateSupplier(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => SupplierUpdateInput) input: SupplierUpdateInput,
  ): Promise<SupplierRecordType> {
    return suppliers.updateSupplier(ctx, storeId, id, input);
  }

  @Mutation(() => Boolean, { description: 'Purchase orders keep their own copy of the supplier.' })
  @Allow(WRITE)
  deleteSupplier(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    return suppliers.deleteSupplier(ctx, storeId, id);
  }

  @Mutation(() => SupplierBatchResult)
  @Allow(WRITE)
  batchDeleteSuppliers(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => SupplierBatchDeleteInput) input: SupplierBatchDeleteInput,
  ): Promise<SupplierBatchResult> {
    return suppliers.batchDeleteSuppliers(ctx, storeId, input);
  }

  @Query(() => PurchaseReceiptPage, { description: "A store's purchase receipts, newest first." })
  @Allow(READ)
  purchaseReceipts(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('purchaseOrderId', () => ID, { nullable: true }) purchaseOrderId?: string,
    @Arg('supplierId', () => ID, { nullable: true }) supplierId?: string,
    @Arg('status', () => PurchaseReceiptStatus, { nullable: true }) status?: string,
  ): Promise<PurchaseReceiptPage> {
    return receipts.listPurchaseReceipts(ctx, storeId, { limit, cursor, purchaseOrderId, supplierId, status });
  }

  @Query(() => PurchaseReceiptType)
  @Allow(READ)
  purchaseReceipt(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<PurchaseReceiptType> {
    return receipts.getPurchaseReceipt(ctx, storeId, id);
  }

  @Mutation(() => PurchaseReceiptType, { description: 'A draft receipt against a purchase order; nothing moves until it is posted.' })
  @Allow(WRITE)
  createPurchaseReceipt(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => PurchaseReceiptCreateInput) input: PurchaseReceiptCreateInput,
  ): Promise<PurchaseReceiptType> {
    return receipts.createPurchaseReceipt(ctx, storeId, input);
  }

  @Mutation(() => PurchaseReceiptType, { description: "Receives the lines into the purchase order (its receiving: stock, movements, status); posted again: unchanged." })
  @Allow(WRITE)
  postPurchaseReceipt(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<PurchaseReceiptType> {
    return receipts.postPurchaseReceipt(ctx, storeId, id);
  }

  @Mutation(() => PurchaseReceiptType, { description: 'A draft becomes voided; a posted receipt is final (409).' })
  @Allow(WRITE)
  voidPurchaseReceipt(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<PurchaseReceiptType> {
    return receipts.voidPurchaseReceipt(ctx, storeId, id);
  }

  @Mutation(() => Boolean, { description: 'Drafts only (409 otherwise).' })
  @Allow(WRITE)
  deletePurchaseReceipt(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    return receipts.deletePurchaseReceipt(ctx, storeId, id);
  }
}
