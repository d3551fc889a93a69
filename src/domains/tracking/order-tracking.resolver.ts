import { Arg, Ctx as GqlCtx, ID, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { readableStore } from '../storefront/storefront.catalog.js';
import { publicOrder } from '../storefront/storefront.orders.js';
import { PublicOrderType } from '../storefront/storefront.types.js';

/**
 * Tracking an order by its id (CONTRACT-3 §17.8, the Feeef SDK's `orders.track`): the customer's
 * public view of the order, so no name, phone, address, note or metadata, in a store that serves
 * its storefront; read-limited per address like every storefront read.
 */
@Resolver()
export class OrderTrackingResolver {
  @Allow(policies.storefront('store'))
  @Query(() => PublicOrderType, {
    description: "An order's status, payment status, amounts, status history and parcels by its id, as its customer sees them; no customer data. Unknown id, another store's order or a closed store: NOT_FOUND.",
  })
  async orderTracking(@GqlCtx() ctx: Ctx, @Arg('store', () => String, { description: "The store's id or slug." }) store: string, @Arg('id', () => ID) id: string): Promise<PublicOrderType> {
    const open = await readableStore(ctx, store);
    return publicOrder(ctx, open.id, id);
  }
}
