import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** One integration of a store (CONTRACT-2 §13): typed config, secrets encrypted one by one. */
@Entity({ tableName: 'store_integrations' })
export class StoreIntegration {
  [OptionalProps]?: 'id' | 'provider' | 'enabled' | 'status' | 'config' | 'secretsEnc' | 'lastError' | 'lastSuccessAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('int');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  key!: string;

  /** `carrier`, `ads-platform`, `platform-connector`, `payments` or `custom`. */
  @Property({ type: 'string' })
  kind!: string;

  @Property({ type: 'string', nullable: true })
  provider: string | null = null;

  @Property({ type: 'boolean' })
  enabled: boolean = true;

  /** `unverified`, `active`, `error` or `disconnected`. */
  @Property({ type: 'string' })
  status: string = 'unverified';

  @Property({ type: 'json' })
  config: Record<string, unknown> = {};

  /** name → { enc: AES-256-GCM text, last4, updatedAt }. */
  @Property({ type: 'json' })
  secretsEnc: Record<string, { enc: string; last4: string; updatedAt: string }> = {};

  @Property({ type: 'string', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'Date', nullable: true })
  lastSuccessAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
