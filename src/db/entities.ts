import { User } from '../domains/users/user.entity.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { Membership, Store } from '../domains/stores/store.entity.js';
import { UserCode } from '../domains/auth/code.entity.js';
import { AppUserData, AuthorizationCode, OAuthApp } from '../domains/apps/app.entity.js';
import { OutboxMail } from '../lib/mail.entity.js';
import { Product } from '../domains/products/product.entity.js';
import { Order, OrderStatus } from '../domains/orders/order.entity.js';
import { Webhook, WebhookDelivery } from '../webhooks/webhook.entity.js';
import { ProductLandingPage } from '../domains/landing-pages/landing-page.entity.js';

/** Every entity, listed explicitly (no file-system discovery). */
export const ENTITIES = [
  User,
  AuthToken,
  Store,
  Membership,
  UserCode,
  OAuthApp,
  AuthorizationCode,
  AppUserData,
  OutboxMail,
  Product,
  Order,
  OrderStatus,
  Webhook,
  WebhookDelivery,
  ProductLandingPage,
];
