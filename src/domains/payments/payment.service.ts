import { LockMode } from '@mikro-orm/core';
import { onPrimary, type Ctx, type Deps } from '../../core/context.js';
import { conflict, forbidden, invalid, notFound, unauthenticated } from '../../core/errors.js';
import { holdsPermission, requireStorePermission, type Permission } from '../../core/policy.js';
import { sumMinor, toMajor, toMinor } from '../../core/money.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { assertPayable, findPayableOrder, isPaid, lockPayableOrder, recordPaymentState, storeOfOrder, type PayableOrder } from '../orders/order.payments.js';
import { markIntegration } from '../integrations/integration.access.js';
import { ProviderError, type PaymentState, type ProviderCheckout, type RefundState } from '../../providers/payment.js';
import type { OrderRepricing } from '../orders/order.hooks.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import type {
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
import { adapterOf, methodOptions, paymentSettings, type PaymentSettings } from './payment.providers.js';
import { checkIdempotencyKey, requestHash } from '../../core/idempotency.js';
import { releaseKey, reserveKey, storeAnswer } from './idempotency.js';

/** Payments still waiting for an outcome. */
export const OPEN_STATES = ['requires_action', 'pending'];
/** Refunds that hold part of the paid amount: done, or possibly under way. */
const COUNTED_REFUNDS = ['pending', 'requires_action', 'succeeded'];
/** How long one request may hold the right to create a payment's provider checkout. */
const CLAIM_MS = 20_000;
const WAIT_STEP_MS = 50;

export function paymentView(p: Payment): PaymentType {
  return {
    id: p.id,
    orderId: p.orderId,
    provider: p.provider,
    method: p.method,
    amount: toMajor(p.amount, p.currency),
    currency: p.currency,
    checkoutUrl: p.checkoutUrl,
    providerRef: p.providerRef,
    status: p.status,
    paidAt: p.paidAt ? p.paidAt.toISOString() : null,
    reported: p.reportedAmount !== null ? { amount: toMajor(p.reportedAmount, p.reportedCurrency ?? p.currency), currency: p.reportedCurrency ?? p.currency } : null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function refundView(r: PaymentRefund): RefundType {
  return {
    id: r.id,
    paymentId: r.paymentId,
    amount: toMajor(r.amount, r.currency),
    currency: r.currency,
    reason: r.reason,
    manual: r.manual,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

interface OrderRef {
  id: string;
  storeId: string;
}

/**
 * The store comes from the order (`storeId`, when given, must be the order's). A member needs one
 * of `permissions`; the order's payment token works for its own order where `tokenAllowed`.
 */
async function authorizeOrder(ctx: Ctx, orderId: string, storeId: string | null | undefined, permissions: Permission[], tokenAllowed: boolean): Promise<OrderRef> {
  const grant = ctx.paymentGrant;
  if (grant) {
    if (grant.orderId !== orderId || (storeId && storeId !== grant.storeId)) throw notFound('order');
    if (!tokenAllowed) throw forbidden("An order payment token may read the order's payment methods and status, select a method and start a checkout, nothing else");
    return { id: grant.orderId, storeId: grant.storeId };
  }
  if (!ctx.actor) throw unauthenticated(ctx.authFailure ?? undefined);
  const orderStore = await storeOfOrder(ctx, orderId);
  if (!orderStore || (storeId && storeId !== orderStore)) throw notFound('order');
  for (const permission of permissions.slice(0, -1)) if (await holdsPermission(ctx, orderStore, permission)) return { id: orderId, storeId: orderStore };
  await requireStorePermission(ctx, orderStore, permissions[permissions.length - 1]);
  return { id: orderId, storeId: orderStore };
}

/**
 * What a paid payment brought in the order's currency: its amount, or, when its provider reported
 * another amount (the flag), only that; nothing when the money came in another currency.
 */
export function collected(p: Payment, currency: string): number {
  if (p.status !== 'paid' || p.currency !== currency) return 0;
  if (p.reportedCurrency !== null && p.reportedCurrency !== p.currency) return 0;
  return p.reportedAmount ?? p.amount;
}

/**
 * The order's payments and refunds, summed and handed to the order (locked by the caller), which
 * derives its `paymentStatus` and what is still due from them (orders/order.money.ts); `method`
 * records the last selected one.
 */
async function syncOrder(tx: TxCtx, order: PayableOrder, method?: string): Promise<void> {
  await tx.em.flush();
  const payments = await tx.em.find(Payment, { orderId: order.id });
  const paid = payments.filter((p) => p.status === 'paid');
  const refunded = paid.length ? sumMinor((await tx.em.find(PaymentRefund, { orderId: order.id, status: 'succeeded' })).map((r) => r.amount)) : 0;
  await recordPaymentState(tx, order, {
    paid: sumMinor(paid.map((p) => collected(p, order.currency))),
    refunded,
    open: payments.some((p) => OPEN_STATES.includes(p.status)),
    method,
  });
}

/**
 * Cancels an open payment here; one with a provider checkout is closed at its provider once this
 * transaction commits (best effort: should the customer pay it first, the payment becomes paid
 * for what it asked, and the order counts only that).
 */
function cancelPayment(tx: TxCtx, p: Payment, now: Date): void {
  p.status = 'canceled';
  p.claimedUntil = null;
  p.updatedAt = now;
  if (p.providerRef && p.provider !== 'cod') {
    // Its own context: the transaction's ends at commit.
    const { afterCommit: _, ...rest } = tx;
    const ctx: Ctx = { ...rest, em: tx.deps.orm.em.fork() as Ctx['em'] };
    tx.afterCommit.push(() => {
      expireAtProvider(ctx, p.id).catch((err) => tx.deps.log.warn({ paymentId: p.id, err: (err as Error).message }, 'provider checkout not expired'));
    });
  }
}

/** Closes a canceled payment's provider checkout and applies what the provider answers (paid meanwhile: it counts). */
export async function expireAtProvider(ctx: Ctx, paymentId: string): Promise<void> {
  const p = await loadPayment(ctx, paymentId);
  if (!p.providerRef) return;
  const settings = await paymentSettings(ctx, p.storeId);
  let result: ProviderCheckout;
  try {
    result = await adapterOf(ctx.deps.config, p.provider).expire(p.providerRef, settings.secrets);
  } catch (err) {
    await noteProviderOutcome(ctx, p.storeId, err);
    throw err;
  }
  await transaction(ctx, (tx) => applyPaymentReport(tx, p.id, reportOf(result)));
}

/** What a provider's checkout answer reports of its payment. */
const reportOf = (c: ProviderCheckout): PaymentReport => ({ state: c.state, chargeRef: c.chargeRef, amount: c.amount, currency: c.currency });

/**
 * The order's amount changed (orders' `onOrderRepriced`): open online payments ask for an amount
 * that is no longer due, so they are canceled here and at their provider; an open cash-on-delivery
 * payment is re-priced to what is due (nothing to call). Returns whether a payment is still open.
 */
export async function paymentsFollowRepricing(tx: TxCtx, r: OrderRepricing): Promise<boolean> {
  const open = await tx.em.find(Payment, { orderId: r.orderId, status: { $in: OPEN_STATES } }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const now = new Date();
  let stillOpen = false;
  for (const p of open) {
    if (p.provider === 'cod' && r.due > 0 && p.currency === r.currency) {
      p.amount = r.due;
      p.updatedAt = now;
      stillOpen = true;
    } else {
      cancelPayment(tx, p, now);
    }
  }
  return stillOpen;
}

function chooseMethod(ctx: Ctx, settings: PaymentSettings, order: PayableOrder, method: string | null | undefined) {
  const chosen = method ?? order.paymentMethod ?? settings.defaultMethod;
  if (!chosen) throw invalid('method', "is required: the order has no selected method and the store's payments integration no defaultMethod");
  const options = methodOptions(ctx.deps.config, settings, order.currency);
  const option = options.find((o) => o.method === chosen);
  if (!option) throw invalid('method', `is not a payment method (one of ${options.map((o) => o.method).join(', ')})`);
  if (!option.available) throw invalid('method', `${chosen} is not available for this store and order`);
  return option;
}

interface Prepared {
  payment: Payment;
  /** This request creates the provider checkout. */
  claimed: boolean;
}

/**
 * Under the order lock: the open payment with the same method and amount is kept, other open
 * ones are canceled, or a new one is created; the order records the method.
 */
async function preparePayment(
  tx: TxCtx,
  order: PayableOrder,
  method: string | null | undefined,
  urls: { successUrl?: string | null; failureUrl?: string | null } | null,
): Promise<Prepared> {
  const settings = await paymentSettings(tx, order.storeId);
  const option = chooseMethod(tx, settings, order, method);
  await assertPayable(tx, order);
  const online = option.provider !== 'cod';
  if (urls && online && !urls.successUrl) throw invalid('successUrl', 'is required for an online payment method');
  const open = await tx.em.find(Payment, { orderId: order.id, status: { $in: OPEN_STATES } }, { orderBy: { createdAt: 'desc' }, lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const now = new Date();
  // A checkout asks for what is still due (the rest, after a partial payment).
  let payment = open.find((p) => p.method === option.method && p.amount === order.due && p.currency === order.currency);
  for (const p of open) if (p !== payment) cancelPayment(tx, p, now);
  payment ??= tx.em.create(Payment, {
    storeId: order.storeId,
    orderId: order.id,
    provider: option.provider,
    method: option.method,
    amount: order.due,
    currency: order.currency,
    status: online ? 'requires_action' : 'pending',
  });
  let claimed = false;
  if (urls && online && !payment.checkoutUrl) {
    payment.successUrl = urls.successUrl ?? null;
    payment.failureUrl = urls.failureUrl ?? null;
    if (!payment.claimedUntil || payment.claimedUntil <= now) {
      payment.claimedUntil = new Date(now.getTime() + CLAIM_MS);
      claimed = true;
    }
  }
  payment.updatedAt = now;
  await syncOrder(tx, order, option.method);
  return { payment, claimed };
}

export async function paymentMethods(ctx: Ctx, orderId: string, storeId: string | null | undefined): Promise<PaymentMethodsType> {
  const ref = await authorizeOrder(ctx, orderId, storeId, ['fulfillment.write'], true);
  const order = await findPayableOrder(ctx, ref.id);
  if (!order) throw notFound('order');
  const settings = await paymentSettings(ctx, ref.storeId);
  const data = methodOptions(ctx.deps.config, settings, order.currency);
  const usable = (m: string | null) => (m && data.some((o) => o.method === m && o.available) ? m : null);
  return { data, selected: order.paymentMethod ?? usable(settings.defaultMethod) };
}

export async function selectPayment(ctx: Ctx, orderId: string, storeId: string | null | undefined, input: PaymentSelectInput): Promise<PaymentType> {
  const ref = await authorizeOrder(ctx, orderId, storeId, ['fulfillment.write'], true);
  return transaction(ctx, async (tx) => {
    const order = await lockPayableOrder(tx, ref.id);
    const { payment } = await preparePayment(tx, order, input.method, null);
    return paymentView(payment);
  });
}

/** The public URL the provider posts this order's events to (Chargily's per-checkout endpoint). */
const webhookUrl = (ctx: Ctx, orderId: string) => `${ctx.deps.config.publicUrl.replace(/\/+$/, '')}/v1/orders/${encodeURIComponent(orderId)}/payment/webhook`;

async function loadPayment(ctx: Ctx, id: string): Promise<Payment> {
  const p = await ctx.em.fork().findOne(Payment, { id });
  if (!p) throw notFound('payment');
  return p;
}

/**
 * A payment or refund row that went with its order or store while the provider was called: the
 * store's deletion may also have taken its secrets, so the provider's refusal says nothing.
 */
const goneMeanwhile = () => notFound('order');

/** Records what the provider said of the store's credentials: a refusal marks the integration `error`, a success `active`. */
async function noteProviderOutcome(ctx: Ctx, storeId: string, err: unknown): Promise<void> {
  if (!err) await markIntegration(ctx, storeId, 'payments', { ok: true });
  else if (err instanceof ProviderError && err.credentials) await markIntegration(ctx, storeId, 'payments', { ok: false, error: err.message });
}

/** Calls the provider for a claimed payment and stores its checkout; the claim is released either way. */
async function createProviderCheckout(ctx: Ctx, payment: Payment): Promise<void> {
  const adapter = adapterOf(ctx.deps.config, payment.provider);
  const settings = await paymentSettings(ctx, payment.storeId);
  let result: ProviderCheckout;
  try {
    result = await adapter.createCheckout(
      {
        paymentId: payment.id,
        orderId: payment.orderId,
        storeId: payment.storeId,
        amount: payment.amount,
        currency: payment.currency,
        successUrl: payment.successUrl!,
        failureUrl: payment.failureUrl,
        webhookUrl: webhookUrl(ctx, payment.orderId),
        description: `Order ${payment.orderId}`,
      },
      settings.secrets,
    );
  } catch (err) {
    const released = await ctx.em.execute<Array<{ id: string }>>('update payments set claimed_until = null where id = ? returning id', [payment.id]);
    if (!released.length) throw goneMeanwhile();
    await noteProviderOutcome(ctx, payment.storeId, err);
    throw err;
  }
  await noteProviderOutcome(ctx, payment.storeId, null);
  await transaction(ctx, async (tx) => {
    const order = await lockPayableOrder(tx, payment.orderId);
    const p = await tx.em.findOneOrFail(Payment, { id: payment.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    p.checkoutUrl = result.url;
    p.providerRef = result.ref;
    p.chargeRef ??= result.chargeRef;
    p.claimedUntil = null;
    p.updatedAt = new Date();
    applyState(p, result.state);
    // The order's amount changed while the provider was called: this checkout is closed too.
    if (p.status === 'canceled') cancelPayment(tx, p, p.updatedAt);
    await syncOrder(tx, order);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Another request holds the claim: wait for its checkout url, or take the claim over once it is
 * released or lapsed (that request failed), so concurrent checkouts make one provider checkout.
 */
async function awaitCheckout(ctx: Ctx, paymentId: string): Promise<void> {
  const deadline = Date.now() + CLAIM_MS + 5_000;
  for (;;) {
    const [row] = await ctx.em.execute<Array<{ checkout_url: string | null; status: string }>>('select checkout_url, status from payments where id = ?', [paymentId]);
    if (!row || row.checkout_url || !OPEN_STATES.includes(row.status)) return;
    const now = new Date();
    const taken = await ctx.em.execute<Array<{ id: string }>>(
      `update payments set claimed_until = ? where id = ? and checkout_url is null and status in ('requires_action','pending')
         and (claimed_until is null or claimed_until <= ?) returning id`,
      [new Date(now.getTime() + CLAIM_MS), paymentId, now],
    );
    if (taken.length) return createProviderCheckout(ctx, await loadPayment(ctx, paymentId));
    if (Date.now() > deadline) throw conflict('Another request is creating this checkout; retry shortly');
    await sleep(WAIT_STEP_MS);
  }
}

export async function checkoutPayment(
  ctx: Ctx,
  orderId: string,
  storeId: string | null | undefined,
  input: PaymentCheckoutInput,
  idempotencyKey: string | null | undefined,
): Promise<PaymentCheckoutType> {
  const ref = await authorizeOrder(ctx, orderId, storeId, ['fulfillment.write'], true);
  const key = idempotencyKey ?? null;
  if (key !== null) checkIdempotencyKey(key);
  const first = await transaction(ctx, async (tx) => {
    const order = await lockPayableOrder(tx, ref.id);
    if (key !== null) {
      const stored = await reserveKey<PaymentType>(tx, ref.id, 'checkout', key, requestHash(input));
      if (stored) return { stored };
    }
    return { prepared: await preparePayment(tx, order, input.method, { successUrl: input.successUrl, failureUrl: input.failureUrl }) };
  });
  if (first.stored) return { payment: first.stored, replayed: true };
  const { payment, claimed } = first.prepared!;
  try {
    if (payment.provider !== 'cod' && !payment.checkoutUrl) {
      if (claimed) await createProviderCheckout(ctx, payment);
      else await awaitCheckout(ctx, payment.id);
    }
    const view = paymentView(await loadPayment(ctx, payment.id));
    if (key !== null) await storeAnswer(ctx, ref.id, 'checkout', key, view);
    return { payment: view, replayed: false };
  } catch (err) {
    if (key !== null) await releaseKey(ctx, ref.id, 'checkout', key);
    throw err;
  }
}

/** Transitions a provider (or the carrier) may cause; a paid report always wins, since money moved. */
function applyState(p: Payment, next: PaymentState | null): boolean {
  if (!next || next === p.status) return false;
  const allowed = next === 'paid' ? p.status !== 'paid' : OPEN_STATES.includes(p.status) && next !== 'requires_action' && next !== 'pending';
  if (!allowed) return false;
  p.status = next;
  if (next === 'paid') p.paidAt = new Date();
  p.claimedUntil = null;
  p.updatedAt = new Date();
  return true;
}

/** What a provider (or the carrier) reports of one payment; amounts in minor units of `currency`. */
export interface PaymentReport {
  state: PaymentState | null;
  chargeRef?: string | null;
  providerRef?: string | null;
  /** What the provider says the payment is for, when it says (checked against the payment). */
  amount?: number | null;
  currency?: string | null;
}

/**
 * A report naming another amount or currency than the payment's is recorded on the payment (the
 * flag): a paid payment then counts only what was reported, never its own amount.
 */
function flagMismatch(tx: TxCtx, p: Payment, report: PaymentReport): boolean {
  const amount = report.amount ?? p.amount;
  const currency = report.currency ?? p.currency;
  if (amount === p.amount && currency === p.currency) return false;
  if (p.reportedAmount === amount && p.reportedCurrency === currency) return false;
  p.reportedAmount = amount;
  p.reportedCurrency = currency;
  tx.deps.log.warn({ paymentId: p.id, amount: p.amount, currency: p.currency, reportedAmount: amount, reportedCurrency: currency }, 'provider reported another amount or currency for a payment');
  return true;
}

/**
 * Applies what the provider reported of one payment, under the order and payment locks (that
 * order, as every payment write takes them). A payment that becomes paid cancels the order's
 * other open payments (here and at their provider): they ask for an amount no longer due.
 */
export async function applyPaymentReport(tx: TxCtx, paymentId: string, report: PaymentReport): Promise<boolean> {
  const [row] = await tx.em.execute<Array<{ order_id: string }>>('select order_id from payments where id = ?', [paymentId]);
  if (!row) return false;
  const order = await lockPayableOrder(tx, row.order_id);
  const payment = await tx.em.findOneOrFail(Payment, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  let changed = false;
  if (report.chargeRef && !payment.chargeRef) {
    payment.chargeRef = report.chargeRef;
    changed = true;
  }
  if (report.providerRef && !payment.providerRef) {
    payment.providerRef = report.providerRef;
    changed = true;
  }
  if (flagMismatch(tx, payment, report)) changed = true;
  if (applyState(payment, report.state)) {
    changed = true;
    if (payment.status === 'paid') {
      const others = await tx.em.find(Payment, { orderId: order.id, status: { $in: OPEN_STATES }, id: { $ne: payment.id } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      for (const o of others) cancelPayment(tx, o, new Date());
    }
  }
  if (changed) payment.updatedAt = new Date();
  await syncOrder(tx, order);
  return changed;
}

/** Refund transitions: anything but a canceled refund may move; a late provider report heals a failed one. */
export async function applyRefundReport(tx: TxCtx, refundId: string, report: { state: RefundState; providerRef?: string | null }): Promise<boolean> {
  const [row] = await tx.em.execute<Array<{ order_id: string }>>('select order_id from payment_refunds where id = ?', [refundId]);
  if (!row) return false;
  const order = await lockPayableOrder(tx, row.order_id);
  const refund = await tx.em.findOneOrFail(PaymentRefund, { id: refundId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  let changed = false;
  if (report.providerRef && !refund.providerRef) {
    refund.providerRef = report.providerRef;
    changed = true;
  }
  if (report.state !== refund.status && refund.status !== 'canceled') {
    refund.status = report.state;
    changed = true;
  }
  if (changed) refund.updatedAt = new Date();
  await syncOrder(tx, order);
  return changed;
}

/** The order refreshes running in this process, by order id: concurrent callers share one. */
const refreshing = new WeakMap<Deps, Map<string, Promise<void>>>();

/**
 * `?refresh=1`: asks the providers about the order's open payments and unsettled refunds. Each
 * store's provider key pays for these calls, so a flood of callers makes one: callers in this
 * process share the running refresh, and each payment or refund is asked about at most once per
 * `paymentRefreshIntervalMs` across processes (a claim on its row); the others read what is stored.
 */
export function refreshOrderPayments(ctx: Ctx, orderId: string, storeId: string): Promise<void> {
  let running = refreshing.get(ctx.deps);
  if (!running) refreshing.set(ctx.deps, (running = new Map()));
  let refresh = running.get(orderId);
  if (!refresh) {
    refresh = pullOrderPayments(ctx, orderId, storeId).finally(() => running.delete(orderId));
    running.set(orderId, refresh);
  }
  return refresh;
}

async function pullOrderPayments(ctx: Ctx, orderId: string, storeId: string): Promise<void> {
  const settings = await paymentSettings(ctx, storeId);
  const em = ctx.em.fork();
  const payments = await em.find(Payment, { orderId, status: { $in: OPEN_STATES }, provider: { $ne: 'cod' }, providerRef: { $ne: null } });
  for (const p of payments) if (await claimRefresh(ctx, 'payments', p.id)) await refreshPayment(ctx, p, settings);
  const refunds = await em.find(PaymentRefund, { orderId, status: { $in: ['pending', 'requires_action'] }, providerRef: { $ne: null } });
  for (const r of refunds) if (await claimRefresh(ctx, 'payment_refunds', r.id)) await refreshRefund(ctx, r, settings);
}

/** True when this caller may ask the provider about the row now: nobody did within the interval. */
async function claimRefresh(ctx: Ctx, table: 'payments' | 'payment_refunds', id: string): Promise<boolean> {
  const claimed = await transaction(ctx, (tx) =>
    tx.em.execute<Array<{ id: string }>>(
      `update ${table} set refreshed_at = clock_timestamp() where id = ?
         and (refreshed_at is null or refreshed_at <= clock_timestamp() - make_interval(secs => ?)) returning id`,
      [id, ctx.deps.config.paymentRefreshIntervalMs / 1000],
    ),
  );
  return claimed.length > 0;
}

export async function refreshPayment(ctx: Ctx, p: Payment, settings: PaymentSettings): Promise<boolean> {
  let result: ProviderCheckout;
  try {
    result = await adapterOf(ctx.deps.config, p.provider).retrieve(p.providerRef!, settings.secrets);
  } catch (err) {
    await noteProviderOutcome(ctx, p.storeId, err);
    throw err;
  }
  return transaction(ctx, (tx) => applyPaymentReport(tx, p.id, reportOf(result)));
}

export async function refreshRefund(ctx: Ctx, r: PaymentRefund, settings: PaymentSettings): Promise<boolean> {
  const payment = await loadPayment(ctx, r.paymentId);
  let result;
  try {
    result = await adapterOf(ctx.deps.config, payment.provider).retrieveRefund(r.providerRef!, settings.secrets);
  } catch (err) {
    await noteProviderOutcome(ctx, r.storeId, err);
    throw err;
  }
  return transaction(ctx, (tx) => applyRefundReport(tx, r.id, { state: result.state }));
}

export async function paymentStatus(readCtx: Ctx, orderId: string, storeId: string | null | undefined, refresh: string | null | undefined): Promise<OrderPaymentStatusType> {
  // A refresh writes what the providers said and answers with it: all of it on the primary.
  const ctx = refresh === '1' || refresh === 'true' ? onPrimary(readCtx) : readCtx;
  const ref = await authorizeOrder(ctx, orderId, storeId, ['fulfillment.write'], true);
  if (refresh !== null && refresh !== undefined && !['0', '1', 'true', 'false'].includes(refresh)) throw invalid('refresh', 'must be 1 or 0');
  if (refresh === '1' || refresh === 'true') await refreshOrderPayments(ctx, ref.id, ref.storeId);
  const em = ctx.em.fork();
  const order = await findPayableOrder(ctx, ref.id);
  if (!order) throw notFound('order');
  const payments = await em.find(Payment, { orderId: ref.id }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  const refunds = await em.find(PaymentRefund, { orderId: ref.id }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  const current = payments.find((p) => p.status === 'paid') ?? payments[0] ?? null;
  return { paymentStatus: order.paymentStatus, payment: current ? paymentView(current) : null, refunds: refunds.map(refundView) };
}

export async function refundPayment(
  ctx: Ctx,
  orderId: string,
  storeId: string | null | undefined,
  input: PaymentRefundInput,
  idempotencyKey: string | null | undefined,
): Promise<RefundResultType> {
  const ref = await authorizeOrder(ctx, orderId, storeId, ['refunds.write'], false);
  // Only an omitted amount means everything: a null is a client's bug, not a full refund.
  if (input.amount === null) throw invalid('amount', 'must be a number; omit it to refund all that is left');
  const requested = input.amount;
  const key = idempotencyKey ?? null;
  if (key !== null) checkIdempotencyKey(key);
  const first = await transaction(ctx, async (tx) => {
    // The order lock serializes every refund of the order: the refundable rest is counted under it.
    const order = await lockPayableOrder(tx, ref.id);
    if (key !== null) {
      const stored = await reserveKey<RefundType>(tx, ref.id, 'refund', key, requestHash(input));
      if (stored) return { stored };
    }
    const payment = await tx.em.findOne(Payment, { orderId: order.id, status: 'paid' }, { orderBy: { paidAt: 'desc', id: 'desc' }, refresh: true });
    if (!payment) throw conflict('This order has no paid payment to refund');
    const held = sumMinor((await tx.em.find(PaymentRefund, { paymentId: payment.id, status: { $in: COUNTED_REFUNDS } })).map((r) => r.amount));
    // What the payment brought (a flagged payment: what its provider reported), less what is refunded or on its way.
    const rest = collected(payment, payment.currency) - held;
    const amount = requested === undefined ? rest : toMinor(requested, payment.currency, 'amount');
    if (amount <= 0) throw invalid('amount', requested === undefined ? 'nothing is left to refund' : 'must be more than 0');
    if (amount > rest) throw invalid('amount', `is more than the refundable rest (${toMajor(rest, payment.currency)} ${payment.currency})`);
    const adapter = adapterOf(tx.deps.config, payment.provider);
    const manual = input.manual === true;
    if (!manual && !adapter.refunds) throw conflict(`${payment.provider} has no refund API: send manual: true to record money returned outside Souk`);
    const refund = tx.em.create(PaymentRefund, {
      storeId: order.storeId,
      orderId: order.id,
      paymentId: payment.id,
      amount,
      currency: payment.currency,
      reason: input.reason?.trim() || null,
      manual,
      status: manual ? 'succeeded' : 'pending',
    });
    await syncOrder(tx, order);
    return { refund, payment };
  });
  if (first.stored) return { refund: first.stored, replayed: true };
  const { refund, payment } = first as { refund: PaymentRefund; payment: Payment };
  try {
    if (!refund.manual) await sendRefund(ctx, refund, payment);
    const view = refundView(await ctx.em.fork().findOneOrFail(PaymentRefund, { id: refund.id }));
    if (key !== null) await storeAnswer(ctx, ref.id, 'refund', key, view);
    return { refund: view, replayed: false };
  } catch (err) {
    if (key !== null) await releaseKey(ctx, ref.id, 'refund', key);
    throw err;
  }
}

/**
 * The provider call, after the pending refund committed (it holds its part of the rest). Souk's
 * refund id is the provider's Idempotency-Key. A failed call marks the refund failed; should the
 * provider have acted after all, its refund event (carrying our id) heals the record.
 */
async function sendRefund(ctx: Ctx, refund: PaymentRefund, payment: Payment): Promise<void> {
  const settings = await paymentSettings(ctx, payment.storeId);
  let result;
  try {
    result = await adapterOf(ctx.deps.config, payment.provider).refund(
      {
        refundId: refund.id,
        paymentId: payment.id,
        checkoutRef: payment.providerRef,
        chargeRef: payment.chargeRef,
        amount: refund.amount,
        currency: refund.currency,
        reason: refund.reason,
      },
      settings.secrets,
    );
  } catch (err) {
    await transaction(ctx, (tx) => applyRefundReport(tx, refund.id, { state: 'failed' }));
    const [kept] = await ctx.em.execute('select 1 from payment_refunds where id = ?', [refund.id]);
    if (!kept) throw goneMeanwhile();
    await noteProviderOutcome(ctx, payment.storeId, err);
    throw err;
  }
  await noteProviderOutcome(ctx, payment.storeId, null);
  await transaction(ctx, (tx) => applyRefundReport(tx, refund.id, { state: result.state, providerRef: result.ref }));
}

export async function refundStatus(ctx: Ctx, orderId: string, refundId: string, storeId: string | null | undefined): Promise<RefundType> {
  const ref = await authorizeOrder(ctx, orderId, storeId, ['refunds.write', 'fulfillment.write'], false);
  const refund = await ctx.em.fork().findOne(PaymentRefund, { id: refundId, orderId: ref.id });
  if (!refund) throw notFound('refund');
  return refundView(refund);
}

/**
 * The carrier reports the cash of a cash-on-delivery order remitted: `collected` (minor units of
 * the order's currency, what the parcel asked the customer for; default what is due) is what its
 * open cod payment (or a new one, when none was selected) becomes paid for, in the caller's
 * transaction.
 */
export async function codRemitted(tx: TxCtx, orderId: string, collectedAmount?: number): Promise<void> {
  const order = await lockPayableOrder(tx, orderId);
  const collected = collectedAmount ?? order.due;
  if (isPaid(order) || collected <= 0) return;
  let payment = await tx.em.findOne(Payment, { orderId, provider: 'cod', status: 'pending' }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!payment) {
    payment = tx.em.create(Payment, { storeId: order.storeId, orderId, provider: 'cod', method: 'cod', amount: collected, currency: order.currency, status: 'pending' });
    await tx.em.flush();
  } else if (payment.amount !== collected) {
    // Cash on delivery has no provider to ask: the payment is for what the courier collected.
    payment.amount = collected;
  }
  await applyPaymentReport(tx, payment.id, { state: 'paid' });
  if (!order.paymentMethod) await syncOrder(tx, order, 'cod');
}
