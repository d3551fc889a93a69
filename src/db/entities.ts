import { User } from '../domains/users/user.entity.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { Membership, Store } from '../domains/stores/store.entity.js';
import { Product } from '../domains/products/product.entity.js';
import { Order, OrderStatus } from '../domains/orders/order.entity.js';
import { Webhook, WebhookDelivery } from '../webhooks/webhook.entity.js';

/** Every entity, listed explicitly (no file-system discovery). */
export const ENTITIES = [User, AuthToken, Store, Membership, Product, Order, OrderStatus, Webhook, WebhookDelivery];
