import { AppError, invalid, type FieldError } from '../../src/core/errors.js';
import { anyObj, arr, bool, int, nstr, ntime, num, obj, oneOf, str, strs, time } from './schema.js';

/**
 * Feeef's entity shapes (feeef.js `src/core/entities/`) from Souk's GraphQL answers, and Souk
 * inputs from Feeef's request bodies. A Feeef field Souk has a home for is mapped; one it has
 * none for is either kept in the resource's `metadata` under `feeef` (products and orders, so
 * what a client wrote reads back) or accepted and not kept (listed in docs/feeef.md); a field
 * Feeef does not have either is refused with 400, as on /v1.
 */

type Row = Record<string, any>;

/** How one Feeef body field reaches the Souk input: a Souk field name, a function, or null (accepted, not kept). */
export type FieldMap = Record<string, string | null | ((value: unknown, out: Row) => void)>;

export function mapInput(body: Row, spec: FieldMap, out: Row = {}): Row {
  const unknown: FieldError[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!(key in spec)) {
      unknown.push({ path: key, message: 'is not a known field' });
      continue;
    }
    const to = spec[key];
    if (value === undefined || to === null) continue;
    if (typeof to === 'string') out[to] = value;
    else to(value, out);
  }
  if (unknown.length) throw new AppError('VALIDATION_FAILED', unknown.map((e) => `${e.path}: ${e.message}`).join('; '), unknown);
  return out;
}

/** Feeef-only fields of a resource, kept in its `metadata.feeef`. */
export const keepIn = (field: string) => (value: unknown, out: Row) => {
  out.metadata = { ...(out.metadata ?? {}), feeef: { ...(out.metadata?.feeef ?? {}), [field]: value } };
};

/** Souk metadata without the face's own key, and that key's fields. */
export function splitMetadata(metadata: Row | null | undefined): { metadata: Row; kept: Row } {
  const { feeef, ...rest } = metadata ?? {};
  return { metadata: rest, kept: feeef && typeof feeef === 'object' && !Array.isArray(feeef) ? feeef : {} };
}

/**
 * The metadata writes of a partial update. Feeef-only fields go in a merge patch of
 * `metadata.feeef`, applied under the row lock (null removes one), so writers of different fields
 * never lose each other's. A Feeef `metadata` replaces the resource's own metadata, keeping the
 * Feeef-only fields it holds (read by `current`).
 */
export async function metadataWrites(written: Row | undefined, ownSent: boolean, current: () => Promise<Row>): Promise<Row> {
  if (written === undefined) return {};
  const { metadata: own, kept } = splitMetadata(written);
  const out: Row = {};
  if (ownSent) out.metadata = { ...own, feeef: splitMetadata((await current()).metadata).kept };
  if (Object.keys(kept).length) out.metadataPatch = { feeef: kept };
  return out;
}

/** Merges a Feeef `metadata` write with the fields the face keeps beside it. */
const metadataInto = (value: unknown, out: Row) => {
  if (value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('metadata', 'must be an object');
  const { feeef: _reserved, ...own } = value as Row;
  out.metadata = { ...own, ...(out.metadata?.feeef ? { feeef: out.metadata.feeef } : {}) };
};

// ── users and tokens ───────────────────────────────────────────────────────

export const USER = 'id email name platformRole emailVerified emailVerifiedAt createdAt updatedAt';

/** Feeef's UserEntity: phone, photo, wallet and blocking are not Souk features (null). */
export const toUser = (u: Row) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  phone: null,
  photoUrl: null,
  emailVerifiedAt: u.emailVerifiedAt,
  phoneVerifiedAt: null,
  verifiedAt: u.emailVerifiedAt,
  blockedAt: null,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
  metadata: {},
  wallet: null,
  platformRole: u.platformRole,
});

export const userSchema = obj({
  id: str,
  name: nstr,
  email: str,
  phone: nstr,
  photoUrl: nstr,
  emailVerifiedAt: ntime,
  phoneVerifiedAt: ntime,
  verifiedAt: ntime,
  blockedAt: ntime,
  createdAt: time,
  updatedAt: ntime,
  metadata: anyObj,
  wallet: { type: 'null', description: 'Souk has no wallet' },
  platformRole: oneOf('admin', 'user'),
});

export const TOKEN = 'id kind name scopes app { id name } createdAt lastUsedAt expiresAt current last4';

/** Feeef's AuthToken: a session holds every ability (`*`), an app token its scopes. */
export const authToken = (token: string | undefined, t: { name?: string | null; scopes?: string[] | null; lastUsedAt?: unknown; expiresAt?: unknown }) => ({
  type: 'bearer',
  name: t.name ?? null,
  token,
  abilities: t.scopes ?? ['*'],
  lastUsedAt: t.lastUsedAt ?? null,
  expiresAt: t.expiresAt ?? null,
});

export const authTokenSchema = obj({ type: str, name: nstr, token: str, abilities: strs, lastUsedAt: ntime, expiresAt: ntime });
export const authResponseSchema = obj({ token: authTokenSchema, user: userSchema });

/** Feeef's AccessToken (the token list): never the secret. */
export const toAccessToken = (t: Row) => ({
  id: t.id,
  identifier: t.id,
  type: 'bearer',
  name: t.name,
  abilities: t.scopes ?? ['*'],
  lastUsedAt: t.lastUsedAt,
  expiresAt: t.expiresAt,
  createdAt: t.createdAt,
  updatedAt: null,
  kind: t.kind,
  current: t.current,
  last4: t.last4,
  app: t.app,
});

export const accessTokenSchema = obj({
  id: str,
  identifier: str,
  type: str,
  name: nstr,
  abilities: strs,
  lastUsedAt: ntime,
  expiresAt: ntime,
  createdAt: time,
  updatedAt: { type: 'null' },
});

// ── apps ───────────────────────────────────────────────────────────────────

export const APP = 'id name description homepageUrl redirectUris scopes createdAt updatedAt';

/** Feeef's AppEntity: the client id is the app id; Souk apps are always active and have no logo. */
export const toApp = (a: Row, userId: string | null) => ({
  id: a.id,
  userId,
  name: a.name,
  logoUrl: null,
  clientId: a.id,
  redirectUris: a.redirectUris,
  scopes: a.scopes,
  active: true,
  lastUsedAt: null,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  description: a.description,
  homepageUrl: a.homepageUrl,
  ...(a.clientSecret ? { clientSecret: a.clientSecret } : {}),
});

export const appSchema = obj(
  {
    id: str,
    userId: nstr,
    name: str,
    logoUrl: nstr,
    clientId: str,
    redirectUris: strs,
    scopes: strs,
    active: bool,
    lastUsedAt: ntime,
    createdAt: time,
    updatedAt: ntime,
    clientSecret: str,
  },
  ['clientSecret'],
);

export const appInput: FieldMap = {
  name: 'name',
  redirectUris: 'redirectUris',
  scopes: 'scopes',
  description: 'description',
  homepageUrl: 'homepageUrl',
  logoUrl: null,
  userId: (v, out) => {
    out.__userId = v;
  },
  active: (v) => {
    if (v !== true) throw invalid('active', 'Souk apps are always active: delete the app to stop its tokens');
  },
};

// ── stores and members ─────────────────────────────────────────────────────

export const STORE = 'id name currency role createdAt updatedAt';

/** Feeef's StoreEntity: Souk keeps a store's name and currency; the storefront fields are null or empty. */
export const toStore = (s: Row, userId: string | null) => ({
  id: s.id,
  slug: s.id,
  name: s.name,
  title: null,
  description: null,
  iconUrl: null,
  logoUrl: null,
  ondarkLogoUrl: null,
  banner: null,
  action: null,
  domain: null,
  decoration: null,
  userId,
  categories: [],
  addresses: [],
  address: null,
  contacts: [],
  metadata: {},
  publicIntegrations: null,
  verifiedAt: null,
  blockedAt: null,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  defaultShippingRates: null,
  projectId: s.id,
  currency: s.currency,
  role: s.role,
});

export const storeSchema = obj({
  id: str,
  slug: str,
  name: str,
  userId: nstr,
  metadata: anyObj,
  createdAt: time,
  updatedAt: ntime,
  projectId: str,
  currency: str,
  role: oneOf('owner', 'admin', 'editor', 'viewer'),
});

/** Feeef store fields that describe a storefront Souk does not serve: accepted, not kept. */
const STOREFRONT = [
  'slug',
  'title',
  'description',
  'iconUrl',
  'logoUrl',
  'ondarkLogoUrl',
  'categories',
  'addresses',
  'contacts',
  'decoration',
  'domain',
  'banner',
  'action',
  'metadata',
  'defaultShippingRates',
  'shippingPriceId',
  'configs',
  'metaPixelIds',
  'tiktokPixelIds',
  'googleAnalyticsId',
  'googleTagsId',
  'integrations',
  'projectId',
];

export const storeInput: FieldMap = { name: 'name', currency: 'currency', ...Object.fromEntries(STOREFRONT.map((k) => [k, null])) };

export const MEMBER = 'userId email name role createdAt';

/** Feeef's roles are editor, viewer and confermer (an order confirmer: Souk's editor); Souk adds owner and admin. */
export const toSoukRole = (role: unknown, path = 'role'): string => {
  if (role === 'confermer') return 'editor';
  if (role === 'editor' || role === 'viewer' || role === 'admin' || role === 'owner') return role;
  throw invalid(path, 'must be one of editor, viewer, confermer, admin, owner');
};

export const toMember = (m: Row) => ({
  name: m.name,
  userId: m.userId,
  email: m.email,
  role: m.role,
  acceptedAt: m.createdAt,
  expiredAt: null,
  createdAt: m.createdAt,
  active: true,
  metadata: {},
});

export const memberSchema = obj({
  name: str,
  userId: str,
  email: str,
  role: oneOf('owner', 'admin', 'editor', 'viewer'),
  acceptedAt: time,
  expiredAt: { type: 'null' },
  createdAt: time,
  active: bool,
  metadata: anyObj,
});

export const INVITE = 'id storeId email role invitedBy status expiresAt acceptedAt acceptedBy revokedAt metadata createdAt updatedAt';

/** Feeef's StoreInvite; Souk adds `acceptedBy` and `revokedAt`. */
export const toInvite = (i: Row) => ({
  id: i.id,
  storeId: i.storeId,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  status: i.status,
  acceptedAt: i.acceptedAt,
  expiresAt: i.expiresAt,
  metadata: i.metadata,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
  acceptedBy: i.acceptedBy,
  revokedAt: i.revokedAt,
});

export const inviteSchema = obj({
  id: str,
  storeId: str,
  email: str,
  role: oneOf('owner', 'admin', 'editor', 'viewer'),
  invitedBy: str,
  status: oneOf('pending', 'accepted', 'revoked', 'expired'),
  acceptedAt: ntime,
  expiresAt: time,
  metadata: anyObj,
  createdAt: time,
  updatedAt: time,
  acceptedBy: nstr,
  revokedAt: ntime,
});

// ── analytics ──────────────────────────────────────────────────────────────

export const LOR = 'lastSync lastItemDate totalOrders data from to interval tz scope buckets { start orders confirmed completed cancelled returned rest revenue units } totals { orders confirmed completed cancelled returned rest revenue units }';

export const lorSchema = obj({ lor: obj({ lastSync: str, lastItemDate: nstr, totalOrders: int, data: arr(arr(int)) }) });

/** A date-keyed count map from a report's daily buckets. */
export const countsByDay = (lor: Row, field: 'orders' | 'units') =>
  Object.fromEntries((lor.buckets as Row[]).map((b) => [b.start.slice(0, 10), b[field] ?? 0]));

// ── products ───────────────────────────────────────────────────────────────

export const PRODUCT = 'id storeId name slug price sku stock allowBackorder status metadata createdAt updatedAt';

/** Feeef's `published` is Souk's `active`; `deleted` has no Souk status. */
export const toSoukProductStatus = (v: unknown, path = 'status'): string => {
  if (v === 'published') return 'active';
  if (v === 'draft' || v === 'archived') return v;
  throw invalid(path, 'must be one of published, draft, archived');
};
const toFeeefProductStatus = (s: string) => (s === 'active' ? 'published' : s);

/** Feeef product fields Souk has no column for, kept in metadata.feeef. */
const PRODUCT_KEPT = [
  'photoUrl',
  'media',
  'shippingMethodId',
  'shippingPriceId',
  'categoryId',
  'category',
  'title',
  'description',
  'body',
  'cost',
  'discount',
  'variant',
  'offers',
  'forceOffer',
  'defaultOfferCode',
  'addons',
  'type',
  'decoration',
  'integrationsData',
];

export const productInput: FieldMap = {
  name: 'name',
  slug: 'slug',
  sku: 'sku',
  price: 'price',
  stock: (v, out) => {
    out.stock = v === null ? 0 : v;
  },
  status: (v, out) => {
    out.status = toSoukProductStatus(v);
  },
  metadata: metadataInto,
  allowBackorder: 'allowBackorder',
  storeId: null,
  verifiedAt: null,
  blockedAt: null,
  ...Object.fromEntries(PRODUCT_KEPT.map((k) => [k, keepIn(k)])),
};

export const toProduct = (p: Row) => {
  const { metadata, kept } = splitMetadata(p.metadata);
  return {
    id: p.id,
    slug: p.slug,
    decoration: null,
    name: p.name,
    photoUrl: null,
    media: [],
    storeId: p.storeId,
    shippingMethodId: null,
    shippingPriceId: null,
    categoryId: null,
    category: null,
    title: null,
    description: null,
    body: null,
    sku: p.sku,
    price: p.price,
    cost: null,
    discount: null,
    stock: p.stock,
    sold: 0,
    views: 0,
    likes: 0,
    dislikes: 0,
    variant: null,
    offers: null,
    addons: null,
    type: 'physical',
    ...kept,
    metadata,
    status: toFeeefProductStatus(p.status),
    verifiedAt: null,
    blockedAt: null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    allowBackorder: p.allowBackorder,
  };
};

export const productSchema = obj({
  id: str,
  slug: str,
  name: str,
  storeId: str,
  sku: nstr,
  price: num,
  stock: { type: ['integer', 'null'] },
  metadata: anyObj,
  status: oneOf('published', 'draft', 'archived'),
  createdAt: time,
  updatedAt: ntime,
});

// ── orders ─────────────────────────────────────────────────────────────────

export const ORDER = `id storeId customerName customerPhone items { productId name quantity price } total currency status statusId rejectReason
  shippingAddress { country address communeId communeName wilayaCode } shippingMethodId shippingType shippingCost promoCode discount
  fulfillment { parcelId tracking status labelUrl } paymentStatus paymentMethod confirmedAt landingPageId metadata createdAt updatedAt`;

export const STATUSES = 'query($storeId: ID!) { statuses(storeId: $storeId) { id slug kind position } }';

/** Feeef's fixed order status from the kind of the order's Souk status. */
export const FEEEF_STATUS_OF_KIND: Record<string, string> = {
  new: 'pending',
  confirmed: 'accepted',
  other: 'processing',
  fulfilled: 'completed',
  returned: 'completed',
  cancelled: 'cancelled',
  rejected: 'cancelled',
};

/** The Souk status kind a Feeef status asks for (the store's first status of that kind). */
export const KIND_OF_FEEEF_STATUS: Record<string, string> = {
  draft: 'new',
  pending: 'new',
  review: 'new',
  accepted: 'confirmed',
  followup: 'confirmed',
  processing: 'other',
  completed: 'fulfilled',
  cancelled: 'cancelled',
};

/** Feeef's shipping types: `pickup` is a carrier's stop desk (Souk `desk`), `store` the merchant's branch (Souk `pickup`). */
const SHIPPING_TO_SOUK: Record<string, string> = { home: 'home', pickup: 'desk', store: 'pickup' };
const SHIPPING_TO_FEEEF: Record<string, string> = { home: 'home', desk: 'pickup', pickup: 'store' };

const toSoukShippingType = (v: unknown, path = 'shippingType') => {
  const t = SHIPPING_TO_SOUK[String(v)];
  if (!t) throw invalid(path, 'must be one of home, pickup, store');
  return t;
};

const PAYMENT_TO_FEEEF: Record<string, string> = { paid: 'paid', partially_refunded: 'paid', unpaid: 'unpaid', pending: 'unpaid', refunded: 'unpaid' };

export function deliveryStatusOf(o: Row, kind: string | undefined): string {
  if (kind === 'returned') return 'returned';
  if (kind === 'fulfilled' || o.fulfillment?.status === 'delivered') return 'delivered';
  if (o.fulfillment?.parcelId && !['cancelled', 'failed'].includes(o.fulfillment.status)) return 'delivering';
  return 'pending';
}

/** Feeef order fields Souk has no column for, kept in metadata.feeef. */
const ORDER_KEPT = ['customerEmail', 'customerNote', 'source', 'tags', 'customFields', 'references', 'scheduledAt', 'paymentMethodId', 'confirmerId', 'couponId', 'trackingCode'];

/** Feeef items: `price` and quantity map; variant, offer, addons and discount are kept beside the order. */
function itemsInto(value: unknown, out: Row) {
  if (!Array.isArray(value)) throw invalid('items', 'must be an array');
  const extras: Row[] = [];
  out.items = value.map((item, i) => {
    if (!item || typeof item !== 'object') throw invalid(`items.${i}`, 'must be an object');
    const extra: Row = {};
    const mapped = mapInput(item as Row, {
      productId: 'productId',
      quantity: 'quantity',
      price: 'price',
      productName: 'name',
      name: 'name',
      variantPath: (v) => (extra.variantPath = v),
      offerCode: (v) => (extra.offerCode = v),
      addons: (v) => (extra.addons = v),
      discount: (v) => (extra.discount = v),
      sku: (v) => (extra.sku = v),
    });
    extras.push(extra);
    return mapped;
  });
  if (extras.some((e) => Object.keys(e).length)) keepIn('items')(extras, out);
}

function shippingInto(field: 'address' | 'communeName' | 'wilayaCode' | 'country') {
  return (value: unknown, out: Row) => {
    if (value !== null && typeof value !== 'string') throw invalid(field, 'must be a string');
    out.shippingAddress = { ...(out.shippingAddress ?? {}), [field]: value };
  };
}

export const orderCreateInput = (): FieldMap => ({
  customerName: 'customerName',
  customerPhone: 'customerPhone',
  items: itemsInto,
  metadata: metadataInto,
  shippingAddress: shippingInto('address'),
  shippingCity: shippingInto('communeName'),
  shippingState: shippingInto('wilayaCode'),
  shippingCountry: shippingInto('country'),
  shippingType: (v, out) => {
    out.shippingType = toSoukShippingType(v);
  },
  shippingMethodId: 'shippingMethodId',
  coupon: 'promoCode',
  storeId: null,
  id: null,
  ...Object.fromEntries(ORDER_KEPT.map((k) => [k, keepIn(k)])),
});

export function toOrder(o: Row, kinds: Map<string, string>) {
  const { metadata, kept } = splitMetadata(o.metadata);
  const { items: itemExtras, ...keptFields } = kept;
  const kind = kinds.get(o.statusId);
  const subtotal = Math.round((o.total - o.shippingCost + o.discount) * 100) / 100;
  return {
    id: o.id,
    customerName: o.customerName,
    customerPhone: o.customerPhone,
    customerEmail: null,
    customerNote: null,
    shippingAddress: o.shippingAddress?.address ?? null,
    shippingCity: o.shippingAddress?.communeName ?? null,
    shippingState: o.shippingAddress?.wilayaCode ?? null,
    shippingCountry: o.shippingAddress?.country ?? null,
    shippingMethodId: o.shippingMethodId,
    shippingType: o.shippingType ? SHIPPING_TO_FEEEF[o.shippingType] : 'home',
    trackingCode: o.fulfillment?.tracking ?? null,
    paymentMethodId: o.paymentMethod,
    items: (o.items as Row[]).map((it, i) => ({
      productId: it.productId,
      productName: it.name,
      quantity: it.quantity,
      price: it.price,
      ...(Array.isArray(itemExtras) ? (itemExtras[i] ?? {}) : {}),
    })),
    subtotal,
    shippingPrice: o.shippingCost,
    total: o.total,
    discount: o.discount,
    coupon: o.promoCode,
    couponCode: o.promoCode,
    storeId: o.storeId,
    source: null,
    confirmerId: null,
    tags: null,
    ...keptFields,
    metadata,
    status: FEEEF_STATUS_OF_KIND[kind ?? 'new'] ?? 'pending',
    customStatus: o.status,
    paymentStatus: PAYMENT_TO_FEEEF[o.paymentStatus] ?? 'unpaid',
    deliveryStatus: deliveryStatusOf(o, kind),
    currency: o.currency,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

export const orderSchema = obj({
  id: str,
  customerName: nstr,
  customerPhone: nstr,
  shippingType: oneOf('home', 'pickup', 'store'),
  items: arr(obj({ productId: nstr, productName: str, quantity: int, price: num })),
  subtotal: num,
  shippingPrice: num,
  total: num,
  discount: num,
  storeId: str,
  metadata: anyObj,
  status: oneOf(...new Set(Object.values(FEEEF_STATUS_OF_KIND))),
  customStatus: str,
  paymentStatus: oneOf('unpaid', 'paid'),
  deliveryStatus: oneOf('pending', 'delivering', 'delivered', 'returned'),
  createdAt: time,
  updatedAt: ntime,
});

