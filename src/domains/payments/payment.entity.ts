import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';
import { moneyColumn } from '../../core/money.js';

/** One attempt to collect an order's total through one provider (CONTRACT-2 §15). */
@Entity({ tableName: 'payments' })
export class Payment {
  [OptionalProps]?:
    | 'id' | 'checkoutUrl' | 'providerRef' | 'chargeRef' | 'successUrl' | 'failureUrl' | 'paidAt' | 'claimedUntil' | 'checkedAt'
    | 'reportedAmount' | 'reportedCurrency' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('pay');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  orderId!: string;

  /** `cod`, `chargily` or `stripe`. */
  @Property({ type: 'string' })
  provider!: string;

  @Property({ type: 'string' })
  method!: string;

  /** Minor units of `currency`. */
  @Property({ type: moneyColumn() })
  amount!: number;

  @Property({ type: 'string' })
  currency!: string;

  @Property({ type: 'string', nullable: true })
  checkoutUrl: string | null = null;

  /** The provider's checkout id (Chargily checkout, Stripe Checkout Session). */
  @Property({ type: 'string', nullable: true })
  providerRef: string | null = null;

  /** What refunds are made against (Stripe's PaymentIntent), once the provider names it. */
  @Property({ type: 'string', nullable: true })
  chargeRef: string | null = null;

  @Property({ type: 'string', nullable: true })
  successUrl: string | null = null;

  @Property({ type: 'string', nullable: true })
  failureUrl: string | null = null;

  /** Online: `requires_action → paid|failed|canceled|expired`; cod: `pending → paid|canceled`. */
  @Property({ type: 'string' })
  status!: string;

  @Property({ type: 'Date', nullable: true })
  paidAt: Date | null = null;

  /**
   * Set (the flag) when the provider reported this payment for another amount or currency than
   * its own: what it said, minor units of `reportedCurrency`. A paid payment counts only that.
   */
  @Property({ type: moneyColumn(), nullable: true })
  reportedAmount: number | null = null;

  @Property({ type: 'string', nullable: true })
  reportedCurrency: string | null = null;

  /** While set and in the future, one request is creating the provider checkout; others wait. */
  @Property({ type: 'Date', nullable: true })
  claimedUntil: Date | null = null;

  /** Last time the reconciler asked the provider about this payment. */
  @Property({ type: 'Date', nullable: true })
  checkedAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'payment_refunds' })
export class PaymentRefund {
  [OptionalProps]?: 'id' | 'reason' | 'providerRef' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('rfd');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  orderId!: string;

  @Property({ type: 'string' })
  paymentId!: string;

  /** Minor units of `currency`. */
  @Property({ type: moneyColumn() })
  amount!: number;

  @Property({ type: 'string' })
  currency!: string;

  @Property({ type: 'string', nullable: true })
  reason: string | null = null;

  /** Money returned outside Souk (cash, bank transfer): recorded, no provider call. */
  @Property({ type: 'boolean' })
  manual!: boolean;

  /** `pending`, `requires_action`, `succeeded`, `failed` or `canceled`. */
  @Property({ type: 'string' })
  status!: string;

  @Property({ type: 'string', nullable: true })
  providerRef: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
