import { Migration } from '@mikro-orm/migrations';

/**
 * The order's money in one place: `amount_paid` (minor units, what its payments collected) beside
 * its total, so the amount still due is the order's own arithmetic; the payment status
 * `partially_paid`; and on a payment the amount and currency its provider reported when they
 * differ from the payment's (the flag). Existing orders take what their paid payments add up to, or their
 * total when they are paid without payment rows (imported orders).
 */
export class Migration20261126100000_order_money extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table orders drop constraint if exists orders_payment_status_check`);
    this.addSql(`alter table orders add constraint orders_payment_status_check
      check (payment_status in ('unpaid','pending','partially_paid','paid','partially_refunded','refunded'))`);
    this.addSql(`alter table orders add column amount_paid bigint not null default 0`);
    this.addSql(`update orders set amount_paid = greatest(total, 0) where payment_status in ('paid','partially_refunded','refunded')`);
    this.addSql(`update orders o set amount_paid = p.paid
      from (select order_id, sum(amount) as paid from payments where status = 'paid' group by order_id) p where p.order_id = o.id`);
    this.addSql(`alter table payments add column reported_amount bigint null, add column reported_currency text null`);
  }
}
