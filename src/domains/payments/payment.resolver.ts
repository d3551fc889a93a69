import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  OrderPaymentStatusType,
  PaymentCheckoutInput,
  PaymentCheckoutType,
  PaymentMethodsType,
  PaymentRefundInput,
  PaymentSelectInput,
  PaymentType,
  RefundResultType,
  RefundType,
} from './payment.types.js';
import * as payments from './payment.service.js';

const BY_ORDER = 'the store comes from the order; a member with the permission, or the order payment token';
const STORE_ARG = { nullable: true, description: "Optional; when given it must be the order's store." };
const KEY_ARG = { nullable: true, description: 'Idempotency-Key: a replay within 24 h gets the stored answer; another body with the same key → CONFLICT.' };

@Resolver()
export class PaymentResolver {
  @Query(() => PaymentMethodsType, { description: "The payment methods of the order's store, and the one selected." })
  @Allow(policies.delegated(`${BY_ORDER} (fulfillment.write)`))
  orderPaymentMethods(@GqlCtx() ctx: Ctx, @Arg('orderId', () => ID) orderId: string, @Arg('storeId', () => ID, STORE_ARG) storeId?: string): Promise<PaymentMethodsType> {
    return payments.paymentMethods(ctx, orderId, storeId);
  }

  @Query(() => OrderPaymentStatusType, { description: "The order's payment status, payment and refunds; refresh 1 asks the provider first." })
  @Allow(policies.delegated(`${BY_ORDER} (fulfillment.write)`))
  orderPaymentStatus(
    @GqlCtx() ctx: Ctx,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('storeId', () => ID, STORE_ARG) storeId?: string,
    @Arg('refresh', () => String, { nullable: true, description: '1 (or true) pulls the open payment and refunds from the provider.' }) refresh?: string,
  ): Promise<OrderPaymentStatusType> {
    return payments.paymentStatus(ctx, orderId, storeId, refresh);
  }

  @Query(() => RefundType)
  @Allow(policies.delegated('the store comes from the order; a member with refunds.write or fulfillment.write'))
  orderPaymentRefund(
    @GqlCtx() ctx: Ctx,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('refundId', () => ID) refundId: string,
    @Arg('storeId', () => ID, STORE_ARG) storeId?: string,
  ): Promise<RefundType> {
    return payments.refundStatus(ctx, orderId, refundId, storeId);
  }

  @Mutation(() => PaymentType, { description: 'Choose how the order is paid: keeps or creates its open payment for that method.' })
  @Allow(policies.delegated(`${BY_ORDER} (fulfillment.write)`))
  selectOrderPayment(
    @GqlCtx() ctx: Ctx,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('input', () => PaymentSelectInput) input: PaymentSelectInput,
    @Arg('storeId', () => ID, STORE_ARG) storeId?: string,
  ): Promise<PaymentType> {
    return payments.selectPayment(ctx, orderId, storeId, input);
  }

  @Mutation(() => PaymentCheckoutType, { description: "Start (or reuse) the order's checkout at its provider; cash on delivery needs none." })
  @Allow(policies.delegated(`${BY_ORDER} (fulfillment.write)`))
  checkoutOrderPayment(
    @GqlCtx() ctx: Ctx,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('input', () => PaymentCheckoutInput) input: PaymentCheckoutInput,
    @Arg('storeId', () => ID, STORE_ARG) storeId?: string,
    @Arg('idempotencyKey', () => String, KEY_ARG) idempotencyKey?: string,
  ): Promise<PaymentCheckoutType> {
    return payments.checkoutPayment(ctx, orderId, storeId, input, idempotencyKey);
  }

  @Mutation(() => RefundResultType, { description: 'Refund the paid payment, in full or in part; providers without a refund API need manual: true.' })
  @Allow(policies.delegated('the store comes from the order; a member with refunds.write'))
  refundOrderPayment(
    @GqlCtx() ctx: Ctx,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('input', () => PaymentRefundInput) input: PaymentRefundInput,
    @Arg('storeId', () => ID, STORE_ARG) storeId?: string,
    @Arg('idempotencyKey', () => String, KEY_ARG) idempotencyKey?: string,
  ): Promise<RefundResultType> {
    return payments.refundPayment(ctx, orderId, storeId, input, idempotencyKey);
  }
}
