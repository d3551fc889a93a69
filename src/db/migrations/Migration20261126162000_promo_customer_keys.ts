import { Migration } from '@mikro-orm/migrations';
import { phoneKey } from '../../lib/phone.js';

/**
 * Per-customer promo caps count a phone however it was typed (`phoneKey`: NFKC, every script's
 * digits, E.164 where the order's country is known). Redemptions counted before under the old
 * key (ASCII digits only) are re-keyed from their order, so earlier uses still count.
 */
export class Migration20261126162000_promo_customer_keys extends Migration {
  async up(): Promise<void> {
    const rows = (await this.execute(
      `select r.promo_id, r.order_id, r.customer_key, o.customer_phone, o.shipping_address->>'country' as country
         from promo_redemptions r join orders o on o.id = r.order_id`,
    )) as Array<{ promo_id: string; order_id: string; customer_key: string | null; customer_phone: string | null; country: string | null }>;
    const changed = rows.flatMap((r) => {
      const key = phoneKey(r.customer_phone, r.country);
      return key === r.customer_key ? [] : [{ ...r, key }];
    });
    for (let i = 0; i < changed.length; i += 1000) {
      const part = changed.slice(i, i + 1000);
      await this.execute(
        `update promo_redemptions r set customer_key = v.k
           from unnest(array[?]::text[], array[?]::text[], array[?]::text[]) as v(promo_id, order_id, k)
          where r.promo_id = v.promo_id and r.order_id = v.order_id`,
        [part.map((c) => c.promo_id), part.map((c) => c.order_id), part.map((c) => c.key)],
      );
    }
  }
}
