import { AppError } from '../../core/errors.js';
import type { PaymentAdapter } from '../payment.js';

const offline = () => new AppError('CONFLICT', 'Cash on delivery has no provider to call');

/**
 * Cash on delivery, built in: no checkout page, no provider, no refund API (refunds are
 * `manual`). Its payment stays `pending` until the carrier reports the cash remitted.
 */
export const codAdapter: PaymentAdapter = {
  provider: 'cod',
  methods: ['cod'],
  refunds: false,
  secrets: [],
  currencies: null,
  createCheckout: async () => {
    throw offline();
  },
  retrieve: async () => {
    throw offline();
  },
  expire: async () => {
    throw offline();
  },
  refund: async () => {
    throw offline();
  },
  retrieveRefund: async () => {
    throw offline();
  },
  verifyWebhook: () => null,
};
