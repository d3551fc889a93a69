import { User } from '../domains/users/user.entity.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { Membership, Store } from '../domains/stores/store.entity.js';
import { UserCode } from '../domains/auth/code.entity.js';
import { AppUserData, AuthorizationCode, OAuthApp } from '../domains/apps/app.entity.js';
import { OutboxMail } from '../lib/mail.entity.js';
import { Product } from '../domains/products/product.entity.js';
import { Order, OrderStatus } from '../domains/orders/order.entity.js';
import { Webhook, WebhookDelivery } from '../webhooks/webhook.entity.js';
import { InventoryLevel, InventoryMovement, Warehouse } from '../domains/inventory/inventory.entity.js';
import { Promo } from '../domains/promos/promo.entity.js';
import { PurchaseOrder, PurchaseOrderItem, PurchaseOrderReceipt, PurchaseOrderSend } from '../domains/purchase-orders/purchase-order.entity.js';
import { StoreIntegration } from '../domains/integrations/integration.entity.js';
import { CarrierWebhook, Parcel } from '../domains/carrier/parcel.entity.js';
import { Payment, PaymentRefund } from '../domains/payments/payment.entity.js';
import { TemplateComponent } from '../domains/templates/component.entity.js';
import { StoreTemplate, StoreTemplateLocale } from '../domains/templates/store-template.entity.js';
import { ShippingMethod, ShippingPrice } from '../domains/shipping/shipping.entity.js';
import { Page, PageRedirect } from '../domains/pages/page.entity.js';
import { ImagePromptTemplate } from '../domains/ai/prompt-template.entity.js';
import { AiAsset, AiGeneration, BrandStudio } from '../domains/ai/brand-studio.entity.js';
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
  Warehouse,
  InventoryLevel,
  InventoryMovement,
  Promo,
  PurchaseOrder,
  PurchaseOrderItem,
  PurchaseOrderReceipt,
  PurchaseOrderSend,
  StoreIntegration,
  Parcel,
  CarrierWebhook,
  Payment,
  PaymentRefund,
  TemplateComponent,
  StoreTemplate,
  StoreTemplateLocale,
  ShippingPrice,
  ShippingMethod,
  Page,
  PageRedirect,
  ImagePromptTemplate,
  BrandStudio,
  AiGeneration,
  AiAsset,
  ProductLandingPage,
];
