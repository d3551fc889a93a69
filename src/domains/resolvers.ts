import type { NonEmptyArray } from 'type-graphql';
import { AuthResolver } from './auth/auth.resolver.js';
import { StoreResolver } from './stores/store.resolver.js';
import { StoreInviteResolver } from './stores/invite.resolver.js';
import { UserResolver } from './users/user.resolver.js';
import { AppResolver } from './apps/app.resolver.js';
import { ProductResolver } from './products/product.resolver.js';
import { OrderResolver } from './orders/order.resolver.js';
import { StatusResolver } from './orders/status.resolver.js';
import { WebhookResolver } from '../webhooks/webhook.resolver.js';
import { WebhookRedeliveryResolver } from '../webhooks/redeliver.resolver.js';
import { EventsResolver } from '../events/events.resolver.js';
import { InventoryResolver } from './inventory/inventory.resolver.js';
import { PromoResolver } from './promos/promo.resolver.js';
import { PurchaseOrderResolver } from './purchase-orders/purchase-order.resolver.js';
import { SupplierResolver } from './purchase-orders/supplier.resolver.js';
import { IntegrationResolver } from './integrations/integration.resolver.js';
import { CarrierResolver } from './carrier/carrier.resolver.js';
import { PaymentResolver } from './payments/payment.resolver.js';
import { TemplateComponentResolver } from './templates/component.resolver.js';
import { StoreTemplateResolver } from './templates/store-template.resolver.js';
import { ShippingResolver } from './shipping/shipping.resolver.js';
import { PageResolver } from './pages/page.resolver.js';
import { OptionsResolver } from './options/options.resolver.js';
import { BrandStudioResolver, ImagePromptTemplateResolver } from './ai/ai.resolver.js';
import { LandingPageResolver } from './landing-pages/landing-page.resolver.js';
import { LorResolver } from './analytics/lor.resolver.js';
import { AdsResolver } from './ads/ads.resolver.js';
import { GeoResolver } from './geo/geo.resolver.js';
import { StorefrontKeyResolver } from './storefront/storefront-keys.resolver.js';
import { StorefrontBlocklistResolver } from './storefront/storefront-blocklist.resolver.js';
import { ConnectorResolver } from './connectors/connector.resolver.js';
import { StorefrontResolver } from './storefront/storefront.resolver.js';
import { OrderTrackingResolver } from './tracking/order-tracking.resolver.js';

/** Every resolver of every domain; the schema is built from this list. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = [
  AuthResolver,
  StoreResolver,
  StoreInviteResolver,
  UserResolver,
  AppResolver,
  ProductResolver,
  OrderResolver,
  StatusResolver,
  WebhookResolver,
  WebhookRedeliveryResolver,
  EventsResolver,
  InventoryResolver,
  PromoResolver,
  PurchaseOrderResolver,
  SupplierResolver,
  IntegrationResolver,
  CarrierResolver,
  PaymentResolver,
  TemplateComponentResolver,
  StoreTemplateResolver,
  ShippingResolver,
  PageResolver,
  OptionsResolver,
  BrandStudioResolver,
  ImagePromptTemplateResolver,
  LandingPageResolver,
  LorResolver,
  AdsResolver,
  ConnectorResolver,
  StorefrontResolver,
  OrderTrackingResolver,
  GeoResolver,
  StorefrontKeyResolver,
  StorefrontBlocklistResolver,
];
