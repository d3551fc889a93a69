import { User } from './auth/user.entity.js';
import { AuthToken } from './auth/token.entity.js';
import { Membership, Store } from './stores/store.entity.js';
import { StoreInvite } from './stores/invite.entity.js';
import { UserCode } from './auth/code.entity.js';
import { AppUserData, AuthorizationCode, OAuthApp } from './apps/app.entity.js';
import { OutboxMail } from '../lib/mail.entity.js';
import { Product } from './products/product.entity.js';
import { Order, OrderStatus } from './orders/order.entity.js';
import { Webhook, WebhookDelivery } from '../webhooks/webhook.entity.js';
import { InventoryLevel, InventoryMovement, Warehouse } from './inventory/inventory.entity.js';
import { Promo } from './promos/promo.entity.js';
import { PurchaseOrder, PurchaseOrderItem, PurchaseOrderReceipt, PurchaseOrderSend } from './purchase-orders/purchase-order.entity.js';
import { SupplierRecord } from './purchase-orders/supplier.entity.js';
import { PurchaseReceipt } from './purchase-orders/purchase-receipt.entity.js';
import { StoreIntegration } from './integrations/integration.entity.js';
import { CarrierWebhook, Parcel } from './carrier/parcel.entity.js';
import { Payment, PaymentRefund } from './payments/payment.entity.js';
import { TemplateComponent } from './templates/component.entity.js';
import { StoreTemplate, StoreTemplateLocale } from './templates/store-template.entity.js';
import { ShippingMethod, ShippingPrice } from './shipping/shipping.entity.js';
import { Page, PageRedirect } from './pages/page.entity.js';
import { ImagePromptTemplate } from './ai/prompt-template.entity.js';
import { AiAsset, AiGeneration, BrandStudio } from './ai/brand-studio.entity.js';
import { StorefrontKey } from './storefront/storefront-keys.entity.js';
import { StorefrontBlock } from './storefront/storefront-blocklist.entity.js';
import { ProductLandingPage } from './landing-pages/landing-page.entity.js';

/** Every entity of every domain, listed explicitly (no file-system discovery); the ORM is set up with this list. */
export const ENTITIES = [
  User,
  AuthToken,
  Store,
  Membership,
  StoreInvite,
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
  SupplierRecord,
  PurchaseReceipt,
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
  StorefrontKey,
  StorefrontBlock,
];
