import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

@Entity({ tableName: 'stores' })
export class Store {
  [OptionalProps]?: 'id' | 'currency' | 'storefront' | 'logoUrl' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('st');

  @Property({ type: 'string' })
  name!: string;

  /** The store's handle (`/v1/storefront/{slug}`), unique across stores (store.storefront.ts). */
  @Property({ type: 'string' })
  slug!: string;

  /** Storefront settings as changed by the store's admins; absent keys take their defaults (storefrontSettings). */
  @Property({ type: 'json' })
  storefront: Record<string, unknown> = {};

  @Property({ type: 'string', nullable: true })
  logoUrl: string | null = null;

  /** ISO 4217; every amount of the store is in its minor units. */
  @Property({ type: 'string' })
  currency: string = 'DZD';

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'store_members' })
export class Membership {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'string' })
  storeId!: string;

  @PrimaryKey({ type: 'string' })
  userId!: string;

  /** `owner`, `admin`, `editor` or `viewer`. */
  @Property({ type: 'string' })
  role!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
