import type { EventSubjects } from '../webhooks/webhook.service.js';
import { getOrder } from './orders/order.service.js';
import { getProduct } from './products/product.service.js';

/** Where a manual webhook send reads the record it names: each kind from its own domain. */
export const EVENT_SUBJECTS: EventSubjects = { order: getOrder, product: getProduct };
