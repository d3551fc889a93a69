import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  InventoryAdjustInput,
  InventoryAvailabilityType,
  InventoryDeltasInput,
  InventoryDeltasResult,
  InventoryLevelBatchDeleteInput,
  InventoryLevelBatchResult,
  InventoryLevelBatchSetInput,
  InventoryLevelSetInput,
  InventoryReceiveInput,
  InventoryLevelPage,
  InventoryLevelType,
  InventoryMovementPage,
  WarehouseBatchDeleteInput,
  WarehouseBatchResult,
  WarehouseCreateInput,
  WarehousePage,
  WarehouseType,
  WarehouseUpdateInput,
} from './inventory.types.js';
import * as inventory from './inventory.service.js';
import * as levels from './level.service.js';

@Resolver()
export class InventoryResolver {
  @Query(() => WarehousePage, { description: "A store's warehouses, newest first." })
  @Allow(policies.store('store.read'))
  warehouses(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('active', () => Boolean, { nullable: true }) active?: boolean,
  ): Promise<WarehousePage> {
    return inventory.listWarehouses(ctx, storeId, { limit, cursor, active });
  }

  @Query(() => WarehouseType)
  @Allow(policies.store('store.read'))
  warehouse(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<WarehouseType> {
    return inventory.getWarehouse(ctx, storeId, id);
  }

  @Mutation(() => WarehouseType, { description: "The store's first warehouse becomes its default and takes the products' current stock." })
  @Allow(policies.store('inventory.write'))
  createWarehouse(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => WarehouseCreateInput) input: WarehouseCreateInput): Promise<WarehouseType> {
    return inventory.createWarehouse(ctx, storeId, input);
  }

  @Mutation(() => WarehouseType, { description: 'Partial update.' })
  @Allow(policies.store('inventory.write'))
  updateWarehouse(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => WarehouseUpdateInput) input: WarehouseUpdateInput,
  ): Promise<WarehouseType> {
    return inventory.updateWarehouse(ctx, storeId, id, input);
  }

  @Mutation(() => Boolean, { description: '409 while it holds stock or an open purchase order awaits it.' })
  @Allow(policies.store('inventory.write'))
  async deleteWarehouse(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await inventory.deleteWarehouse(ctx, storeId, id);
    return true;
  }

  @Mutation(() => WarehouseBatchResult, { description: 'Deletes up to 100 warehouses in one transaction.' })
  @Allow(policies.store('inventory.write'))
  batchDeleteWarehouses(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => WarehouseBatchDeleteInput) input: WarehouseBatchDeleteInput,
  ): Promise<WarehouseBatchResult> {
    return inventory.batchDeleteWarehouses(ctx, storeId, input);
  }

  @Query(() => InventoryLevelPage, { description: 'Stock per warehouse and product.' })
  @Allow(policies.store('store.read'))
  inventoryLevels(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('productId', () => ID, { nullable: true }) productId?: string,
    @Arg('warehouseId', () => ID, { nullable: true }) warehouseId?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<InventoryLevelPage> {
    return inventory.listLevels(ctx, storeId, { productId, warehouseId, limit, cursor });
  }

  @Query(() => InventoryMovementPage, { description: 'The stock ledger, newest first.' })
  @Allow(policies.store('store.read'))
  inventoryMovements(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('productId', () => ID, { nullable: true }) productId?: string,
    @Arg('warehouseId', () => ID, { nullable: true }) warehouseId?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<InventoryMovementPage> {
    return inventory.listMovements(ctx, storeId, { productId, warehouseId, limit, cursor });
  }

  @Mutation(() => InventoryLevelType, { description: 'Counts a product in a warehouse (an adjustment movement, productUpdated).' })
  @Allow(policies.store('inventory.write'))
  adjustInventory(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => InventoryAdjustInput) input: InventoryAdjustInput): Promise<InventoryLevelType> {
    return inventory.adjustInventory(ctx, storeId, input);
  }

  @Mutation(() => InventoryLevelType, { description: 'Receives units of a product (by id or sku) into a warehouse, opening its level there (an adjustment movement, productUpdated).' })
  @Allow(policies.store('inventory.write'))
  receiveInventory(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => InventoryReceiveInput) input: InventoryReceiveInput): Promise<InventoryLevelType> {
    return levels.receiveInventory(ctx, storeId, input);
  }

  @Mutation(() => InventoryLevelType, { description: 'Sets an existing level to a count (the difference is an adjustment movement); 404 without one.' })
  @Allow(policies.store('inventory.write'))
  setInventoryLevel(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => InventoryLevelSetInput) input: InventoryLevelSetInput): Promise<InventoryLevelType> {
    return levels.setInventoryLevel(ctx, storeId, input);
  }

  @Mutation(() => InventoryLevelBatchResult, { description: 'Sets up to 100 levels (ids `{warehouseId}~{productId}`) to one count in one transaction.' })
  @Allow(policies.store('inventory.write'))
  batchSetInventoryLevels(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => InventoryLevelBatchSetInput) input: InventoryLevelBatchSetInput,
  ): Promise<InventoryLevelBatchResult> {
    return levels.batchSetInventoryLevels(ctx, storeId, input);
  }

  @Mutation(() => Boolean, { description: 'Removes a level that holds nothing; 409 while it holds units.' })
  @Allow(policies.store('inventory.write'))
  async deleteInventoryLevel(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('warehouseId', () => ID) warehouseId: string,
    @Arg('productId', () => ID) productId: string,
  ): Promise<boolean> {
    await levels.deleteInventoryLevel(ctx, storeId, warehouseId, productId);
    return true;
  }

  @Mutation(() => InventoryLevelBatchResult, { description: 'Removes up to 100 empty levels (ids `{warehouseId}~{productId}`) in one transaction; 409 per level holding units.' })
  @Allow(policies.store('inventory.write'))
  batchDeleteInventoryLevels(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => InventoryLevelBatchDeleteInput) input: InventoryLevelBatchDeleteInput,
  ): Promise<InventoryLevelBatchResult> {
    return levels.batchDeleteInventoryLevels(ctx, storeId, input);
  }

  @Mutation(() => InventoryDeltasResult, {
    description: 'Applies signed deltas to existing levels in one transaction, all or none; never below zero for a product without allowBackorder (409 at deltas.{i}); idempotent by key.',
  })
  @Allow(policies.store('inventory.write'))
  applyInventoryDeltas(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => InventoryDeltasInput) input: InventoryDeltasInput): Promise<InventoryDeltasResult> {
    return levels.applyInventoryDeltas(ctx, storeId, input);
  }

  @Query(() => [InventoryAvailabilityType], { description: "What the store holds of each SKU (1 to 200): its products' stock, never below 0; an unknown SKU is 0." })
  @Allow(policies.store('store.read'))
  inventoryAvailability(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('skus', () => [String]) skus: string[]): Promise<InventoryAvailabilityType[]> {
    return levels.inventoryAvailability(ctx, storeId, skus);
  }
}
