import { Arg, Ctx as GqlCtx, Field, FieldResolver, ID, Info, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Ctx } from '../../core/context.js';
import { Multiplexed } from '../../core/multiplex.js';
import { Allow, policies } from '../../core/policy.js';
import { PageViewType } from '../pages/page.types.js';
import { getPublicProduct, listPublicProducts, publicLandingPage, publicPage, publicShipping, publicStore, type PublicStore } from './storefront.catalog.js';
import { checkout, priceStorefrontCart } from './storefront.checkout.js';
import { cancelMyOrder, myOrder, subscribeMyOrder } from './storefront.orders.js';
import {
  CartInput,
  CartPriceType,
  PublicLandingPageType,
  PublicOrderType,
  PublicProductPage,
  PublicProductType,
  ShippingOptionsType,
  StorefrontCheckoutType,
  StorefrontOrderInput,
  StorefrontProductSort,
} from './storefront.types.js';

/**
 * A store as shoppers reach it (CONTRACT-3 §17.3): each field reads what it needs, with the store's
 * own check in the same statement, so a query of one list costs one statement.
 */
@ObjectType('Storefront', { description: 'A store as shoppers without an account see it. Unknown, deleted and closed stores are all NOT_FOUND.' })
export class StorefrontType {
  /** The id or slug asked for (not a field). */
  ref!: string;

  @Field(() => ID)
  id!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true })
  logoUrl!: string | null;

  @Field(() => String, { nullable: true, description: "The default locale of the store's first template." })
  defaultLocale!: string | null;

  @Field(() => [String], { description: "The locales of the store's first template." })
  locales!: string[];

  @Field(() => Boolean)
  checkoutEnabled!: boolean;

  @Field(() => String, { description: "The country shoppers' phone numbers are read in." })
  phoneRegion!: string;
}

/** The public store, read once per request and reference. */
const stores = new WeakMap<Ctx, Map<string, Promise<PublicStore>>>();
function storeOnce(ctx: Ctx, ref: string): Promise<PublicStore> {
  let byRef = stores.get(ctx);
  if (!byRef) stores.set(ctx, (byRef = new Map()));
  let store = byRef.get(ref);
  if (!store) byRef.set(ref, (store = publicStore(ctx, ref)));
  return store;
}

/** Fields that check the store themselves, in their own statement. */
const SELF_CHECKING = new Set(['products', 'product', 'page', 'landingPage', 'shipping', 'cart', '__typename']);

@Resolver(() => StorefrontType)
export class StorefrontResolver {
  @Allow(policies.storefront('store'))
  @Query(() => StorefrontType, { description: 'A store as shoppers see it, by its id or slug; no account needed (a bearer token changes nothing).' })
  async storefront(@GqlCtx() ctx: Ctx, @Arg('store', () => String, { description: "The store's id or slug." }) store: string, @Info() info: GraphQLResolveInfo): Promise<StorefrontType> {
    const root = Object.assign(new StorefrontType(), { ref: store });
    // Asked only for fields that check the store themselves: no statement of its own.
    const selected = info.fieldNodes.flatMap((n) => n.selectionSet?.selections ?? []);
    if (selected.every((s) => s.kind === 'Field' && SELF_CHECKING.has(s.name.value))) return root;
    return Object.assign(root, await storeOnce(ctx, store));
  }

  @FieldResolver(() => PublicProductPage, { description: 'Active products; `q` matches the name, case-insensitively.' })
  products(
    @GqlCtx() ctx: Ctx,
    @Root() root: StorefrontType,
    @Arg('limit', () => Int, { nullable: true, description: '1 to 100, default 20.' }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('q', () => String, { nullable: true }) q?: string,
    @Arg('sort', () => StorefrontProductSort, { nullable: true, description: 'newest (default), price_asc, price_desc or name_asc.' }) sort?: string,
  ): Promise<PublicProductPage> {
    return listPublicProducts(ctx, root.ref, { limit, cursor, q, sort });
  }

  @FieldResolver(() => PublicProductType, { description: 'One active product by id or slug.' })
  product(@GqlCtx() ctx: Ctx, @Root() root: StorefrontType, @Arg('idOrSlug', () => String) idOrSlug: string): Promise<PublicProductType> {
    return getPublicProduct(ctx, root.ref, idOrSlug);
  }

  @FieldResolver(() => PageViewType, { description: 'A published page by slug.' })
  page(@GqlCtx() ctx: Ctx, @Root() root: StorefrontType, @Arg('slug', () => String) slug: string): Promise<PageViewType> {
    return publicPage(ctx, root.ref, slug);
  }

  @FieldResolver(() => PublicLandingPageType, { description: 'A published product landing page by slug.' })
  landingPage(@GqlCtx() ctx: Ctx, @Root() root: StorefrontType, @Arg('slug', () => String) slug: string): Promise<PublicLandingPageType> {
    return publicLandingPage(ctx, root.ref, slug);
  }

  @FieldResolver(() => ShippingOptionsType, { description: "The store's shipping options to a state (wilaya)." })
  shipping(@GqlCtx() ctx: Ctx, @Root() root: StorefrontType, @Arg('state', () => String, { description: '"01" to "69".' }) state: string): Promise<ShippingOptionsType> {
    return publicShipping(ctx, root.ref, state);
  }

  @FieldResolver(() => CartPriceType, { description: 'Prices a cart from the store\'s records (amounts in the input are never read), with the problems that keep it from being ordered.' })
  cart(@GqlCtx() ctx: Ctx, @Root() root: StorefrontType, @Arg('input', () => CartInput) input: CartInput): Promise<CartPriceType> {
    return priceStorefrontCart(ctx, root.ref, input);
  }

  @Allow(policies.storefront('store'))
  @Mutation(() => StorefrontCheckoutType, { description: "A guest checkout: the order, priced as `cart` prices it, and the customer's order token." })
  createStorefrontOrder(
    @GqlCtx() ctx: Ctx,
    @Arg('store', () => String, { description: "The store's id or slug." }) store: string,
    @Arg('input', () => StorefrontOrderInput) input: StorefrontOrderInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: 'A repeat with the same key and input within 24 h gets the first answer (scoped to the store and the buyer).' })
    idempotencyKey?: string,
  ): Promise<StorefrontCheckoutType> {
    return checkout(ctx, store, input, idempotencyKey);
  }

  @Allow(policies.orderToken())
  @Query(() => PublicOrderType, { description: "The order its token (the bearer token) opens, as its customer sees it." })
  myOrder(@GqlCtx() ctx: Ctx): Promise<PublicOrderType> {
    return myOrder(ctx);
  }

  @Allow(policies.orderToken())
  @Mutation(() => PublicOrderType, { description: 'The customer cancels the order while its status is of kind new (else CONFLICT).' })
  cancelMyOrder(@GqlCtx() ctx: Ctx): Promise<PublicOrderType> {
    return cancelMyOrder(ctx);
  }

  @Allow(policies.orderToken())
  // Every tab of one order's customer sees the same view: they share one source and one frame.
  @Multiplexed((ctx) => (ctx.paymentGrant ? `order:${ctx.paymentGrant.orderId}` : null))
  @Subscription(() => PublicOrderType, {
    name: 'myOrder',
    description: 'The order its token opens, again each time its status, payment status or a parcel changes.',
    // Its policy is enforced before this runs (guardSubscriptions).
    subscribe: ({ context }) => subscribeMyOrder(context as Ctx),
  })
  myOrderChanged(@Root() view: PublicOrderType): PublicOrderType {
    return view;
  }
}
