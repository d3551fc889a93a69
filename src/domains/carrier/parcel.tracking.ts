import type { EntityManager } from '@mikro-orm/postgresql';

/** An order's parcels as its customer follows them (CONTRACT-3 §17.6): tracking number, status, when it last changed. */
export interface ParcelTracking {
  tracking: string | null;
  status: string;
  updatedAt: Date;
}

export async function parcelsOfOrder(em: EntityManager, orderId: string): Promise<ParcelTracking[]> {
  const rows = await em.execute<Array<{ tracking: string | null; status: string; updated_at: Date | string }>>(
    'select tracking, status, updated_at from parcels where order_id = ? order by created_at, id',
    [orderId],
  );
  return rows.map((r) => ({ tracking: r.tracking, status: r.status, updatedAt: new Date(r.updated_at) }));
}
