/** Selections shared by several routes: the REST body of each resource. */
export const USER = 'id email name platformRole emailVerified createdAt updatedAt';
export const STORE = 'id name slug currency logoUrl storefront { enabled checkoutEnabled showStockLevels allowedOrigins phoneRegion maxItems maxQuantity limits { checkoutsPerAddress checkoutsPerPhone readsPerAddress } } role createdAt updatedAt';
export const MEMBER = 'userId email name role createdAt';
export const PRODUCT = 'id storeId name slug price sku description compareAtPrice photoUrl images stock allowBackorder status metadata createdAt updatedAt';
export const ORDER = `id storeId customerName customerPhone customerEmail source customerIp note risk { score reasons { code detail } } items { productId name quantity price } total currency status statusId rejectReason
  shippingAddress { country address communeId communeName wilayaCode } shippingMethodId shippingType shippingCost promoCode discount
  fulfillment { parcelId tracking status labelUrl } paymentStatus paymentMethod confirmedAt landingPageId metadata createdAt updatedAt`;
export const WEBHOOK = 'id storeId name url events headers metadata active hasSecret createdAt updatedAt';
export const DELIVERY = 'id webhookId event test url status statusCode responseTimeMs responseBody error timings { dns connect tls firstByte total } redeliveryOf createdAt';
export const TOKEN = 'id kind name scopes app { id name } createdAt lastUsedAt expiresAt current last4';
export const APP = 'id name description homepageUrl redirectUris scopes createdAt updatedAt';
export const APP_REF = 'id name description homepageUrl';
export const STATUS = 'id name slug color position kind';
export const INTEGRATION = 'key kind provider enabled status config secrets lastError lastSuccessAt createdAt updatedAt';
export const PARCEL = `id orderId provider tracking status rawStatus labelUrl deliveryType stopDeskId codAmount deliveryFee currency paymentStatus
  history { status rawStatus reason occurredAt source } createdAt updatedAt`;
