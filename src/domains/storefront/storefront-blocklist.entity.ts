import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** One entry of a store's blocklist (CONTRACT-3 §17.7): a phone in E.164, or an IP range. */
@Entity({ tableName: 'storefront_blocklist' })
export class StorefrontBlock {
  [OptionalProps]?: 'id' | 'net' | 'note' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('sfb');

  @Property({ type: 'string' })
  storeId!: string;

  /** `phone` or `ip`. */
  @Property({ type: 'string' })
  kind!: string;

  /** The normalised value: E.164, or a CIDR (`10.0.0.0/8`, `2001:db8::/32`, `203.0.113.7/32`). */
  @Property({ type: 'string' })
  value!: string;

  /** The range of an `ip` entry, for PostgreSQL's `>>=`. */
  @Property({ type: 'string', columnType: 'inet', nullable: true, hidden: true })
  net: string | null = null;

  @Property({ type: 'string', nullable: true })
  note: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
