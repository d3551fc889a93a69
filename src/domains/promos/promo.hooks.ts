import type { Ctx } from '../../core/context.js';

/** An order as a promo check prices it: its lines (prices in minor units), its customer's phone and the country it ships to. */
export interface PromoOrder {
  items: Array<{ productId: string | null; quantity: number; price: number }>;
  customerPhone: string | null;
  country: string | null;
}

declare module '../../core/module.js' {
  interface Module {
    /** The order domain: an order of the store as `validatePromo` prices it; null when there is none. */
    orderForPromo?: (ctx: Ctx, storeId: string, orderId: string) => Promise<PromoOrder | null>;
  }
}

export async function orderForPromo(ctx: Ctx, storeId: string, orderId: string): Promise<PromoOrder | null> {
  for (const m of ctx.deps.modules) if (m.orderForPromo) return m.orderForPromo(ctx, storeId, orderId);
  return null;
}
