import { group, route, type RestRequest } from '../route.js';
import { chargilyWebhook, stripeWebhook } from '../../src/domains/payments/payment-webhook.service.js';

const base = '/v1/orders/{orderId}/payment';

export const PAYMENT = 'id orderId provider method amount currency checkoutUrl providerRef status paidAt reported { amount currency } createdAt updatedAt';
export const REFUND = 'id paymentId amount currency reason manual status createdAt updatedAt';

/** `Idempotency-Key` travels as a header; the operation takes it as a variable. */
const idempotencyKey = (req: RestRequest) => {
  const h = req.headers['idempotency-key'];
  return typeof h === 'string' ? { idempotencyKey: h } : {};
};

const replayed = (value: { replayed: boolean }) => (value.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);

const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });
const IDEMPOTENT = 'Send Idempotency-Key to make a retry safe: a replay within 24 h gets the stored answer with Idempotent-Replayed: true';
const RECEIVED = {
  type: 'object',
  required: ['received', 'duplicates'],
  properties: { received: { type: 'integer', description: 'Events accepted in this call' }, duplicates: { type: 'integer', description: 'Of those, events already seen (nothing changed)' } },
};

export default group('payments', [
  route({
    method: 'GET',
    path: `${base}/methods`,
    summary: "The payment methods of the order's store, whether each is available, and the selected one",
    operation: `query($orderId: ID!, $storeId: ID) { orderPaymentMethods(orderId: $orderId, storeId: $storeId) { data { method provider available } selected } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/select`,
    summary: 'Select how the order is paid; unknown method → 400, already paid → 409',
    operation: `mutation($orderId: ID!, $storeId: ID, $input: PaymentSelectInput!) { selectOrderPayment(orderId: $orderId, storeId: $storeId, input: $input) { ${PAYMENT} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/checkout`,
    summary: `Start the order's checkout: 201 with checkoutUrl (cash on delivery: 200, no url); an open checkout with the same method and amount is reused. ${IDEMPOTENT}`,
    operation: `mutation($orderId: ID!, $storeId: ID, $input: PaymentCheckoutInput!, $idempotencyKey: String) {
      checkoutOrderPayment(orderId: $orderId, storeId: $storeId, input: $input, idempotencyKey: $idempotencyKey) { payment { ${PAYMENT} } replayed } }`,
    variables: idempotencyKey,
    status: 201,
    reply: (value) => ({ status: value.payment.provider === 'cod' ? 200 : 201, headers: replayed(value), body: value.payment }),
    responseSchema: { $ref: '#/components/schemas/Payment' },
    extraResponses: { '200': { description: 'Cash on delivery: the payment, without a checkout page', content: json('Payment') } },
  }),
  route({
    method: 'GET',
    path: `${base}/status`,
    summary: "The order's paymentStatus, payment and refunds; refresh=1 pulls the open payment from the provider first",
    operation: `query($orderId: ID!, $storeId: ID, $refresh: String) { orderPaymentStatus(orderId: $orderId, storeId: $storeId, refresh: $refresh) {
      paymentStatus payment { ${PAYMENT} } refunds { ${REFUND} } } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/refund`,
    summary: `Refund the paid payment (default: all that is left); more than the refundable rest → 400; a provider without refunds needs manual: true, else 409. ${IDEMPOTENT}`,
    operation: `mutation($orderId: ID!, $storeId: ID, $input: PaymentRefundInput!, $idempotencyKey: String) {
      refundOrderPayment(orderId: $orderId, storeId: $storeId, input: $input, idempotencyKey: $idempotencyKey) { refund { ${REFUND} } replayed } }`,
    variables: idempotencyKey,
    status: 201,
    reply: (value) => ({ status: 201, headers: replayed(value), body: value.refund }),
    responseSchema: { $ref: '#/components/schemas/Refund' },
  }),
  route({
    method: 'GET',
    path: `${base}/refund/{refundId}/status`,
    summary: 'One refund of the order',
    operation: `query($orderId: ID!, $refundId: ID!, $storeId: ID) { orderPaymentRefund(orderId: $orderId, refundId: $refundId, storeId: $storeId) { ${REFUND} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/webhook`,
    summary: "Chargily Pay's per-checkout webhook_endpoint: signature = hex HMAC-SHA256 of the raw body keyed by the store's Chargily secret key",
    ingress: chargilyWebhook,
    responseSchema: RECEIVED,
  }),
  route({
    method: 'POST',
    path: '/v1/stores/{storeId}/payment/webhook',
    summary: "Stripe's webhook endpoint: Stripe-Signature (t=, v1=) over t.body with the store's stripeWebhookSecret, 300 s tolerance; the order is found by the session's metadata",
    ingress: stripeWebhook,
    responseSchema: RECEIVED,
  }),
]);
