import { Field, Float, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { IsOptional, Length, Max, MaxLength, Min } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { IsHttpUrl } from '../../core/input.js';
import type { PaymentState as PaymentStateName, RefundState as RefundStateName } from '../../providers/payment.js';
import { PaymentStatus } from '../orders/order.types.js';
import { PROVIDERS } from './payment.providers.js';

export const PaymentProvider = graphqlEnum('PaymentProvider', PROVIDERS);
export const PaymentState = graphqlEnum(
  'PaymentState',
  ['requires_action', 'pending', 'paid', 'failed', 'canceled', 'expired'] as const satisfies readonly PaymentStateName[],
  'Online: `requires_action` until the provider reports `paid`, `failed`, `canceled` or `expired`; cash on delivery: `pending` until `paid` or `canceled`.',
);
export const RefundState = graphqlEnum('RefundState', ['pending', 'requires_action', 'succeeded', 'failed', 'canceled'] as const satisfies readonly RefundStateName[]);

@ObjectType('PaymentReported')
export class PaymentReportedType {
  @Field(() => Float, { description: 'Major units of currency.' })
  amount!: number;

  @Field(() => String)
  currency!: string;
}

@ObjectType('Payment')
export class PaymentType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  orderId!: string;

  @Field(() => PaymentProvider)
  provider!: string;

  @Field(() => String)
  method!: string;

  @Field(() => Float, { description: 'Major units of currency.' })
  amount!: number;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true, description: "The provider's hosted checkout page; null for cash on delivery." })
  checkoutUrl!: string | null;

  @Field(() => String, { nullable: true, description: "The provider's checkout id." })
  providerRef!: string | null;

  @Field(() => PaymentState)
  status!: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  paidAt!: string | null;

  @Field(() => PaymentReportedType, {
    nullable: true,
    description: 'Set (a flag) when the provider reported this payment for another amount or currency than its own: what it reported. A paid payment counts only that toward the order.',
  })
  reported!: PaymentReportedType | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('Refund')
export class RefundType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  paymentId!: string;

  @Field(() => Float, { description: 'Major units of the payment currency.' })
  amount!: number;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true })
  reason!: string | null;

  @Field(() => Boolean, { description: 'Money returned outside Souk and only recorded here.' })
  manual!: boolean;

  @Field(() => RefundState)
  status!: string;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('PaymentMethod')
export class PaymentMethodType {
  @Field(() => String)
  method!: string;

  @Field(() => PaymentProvider)
  provider!: string;

  @Field(() => Boolean, { description: "Enabled in the store's payments integration, configured, and able to take the order's currency." })
  available!: boolean;
}

@ObjectType('PaymentMethods')
export class PaymentMethodsType {
  @Field(() => [PaymentMethodType])
  data!: PaymentMethodType[];

  @Field(() => String, { nullable: true, description: "The order's selected method, else the store's available defaultMethod." })
  selected!: string | null;
}

@ObjectType('OrderPaymentStatus')
export class OrderPaymentStatusType {
  @Field(() => PaymentStatus)
  paymentStatus!: string;

  @Field(() => PaymentType, { nullable: true, description: 'The paid payment, else the latest one.' })
  payment!: PaymentType | null;

  @Field(() => [RefundType], { description: "The order's refunds, newest first." })
  refunds!: RefundType[];
}

@ObjectType('PaymentCheckout')
export class PaymentCheckoutType {
  @Field(() => PaymentType)
  payment!: PaymentType;

  @Field(() => Boolean, { description: 'True when this is the stored answer to an earlier request with the same Idempotency-Key.' })
  replayed!: boolean;
}

@ObjectType('RefundResult')
export class RefundResultType {
  @Field(() => RefundType)
  refund!: RefundType;

  @Field(() => Boolean, { description: 'True when this is the stored answer to an earlier request with the same Idempotency-Key.' })
  replayed!: boolean;
}

@InputType()
export class PaymentSelectInput {
  @Field(() => String, { description: 'One of the methods listed by orderPaymentMethods.' })
  @Length(1, 40, { message: 'must be 1 to 40 characters' })
  method!: string;
}

@InputType()
export class PaymentCheckoutInput {
  @Field(() => String, { nullable: true, description: "Default: the order's selected method, else the store's defaultMethod." })
  @IsOptional()
  @Length(1, 40, { message: 'must be 1 to 40 characters' })
  method?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the provider sends the customer after paying; required for online methods.' })
  @IsOptional()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  @IsHttpUrl()
  successUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the provider sends the customer after a failed or canceled payment (default successUrl).' })
  @IsOptional()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  @IsHttpUrl()
  failureUrl?: string | null;
}

@InputType()
export class PaymentRefundInput {
  @Field(() => Float, { nullable: true, description: 'Major units; omitted: everything not yet refunded (null is refused).' })
  @IsOptional()
  @Min(0, { message: 'must be more than 0' })
  @Max(1e12, { message: 'is too large' })
  amount?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(500, { message: 'must be at most 500 characters' })
  reason?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Record money returned outside Souk (required for providers without a refund API).' })
  @IsOptional()
  manual?: boolean | null;
}
