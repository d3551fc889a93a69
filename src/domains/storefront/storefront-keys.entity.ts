import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** A storefront server key (CONTRACT-3 §17.2): only its SHA-256 is kept; the key is shown once. */
@Entity({ tableName: 'storefront_keys' })
export class StorefrontKey {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('sfkey');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  /** SHA-256 (hex) of the key. */
  @Property({ type: 'string', hidden: true })
  keyHash!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
