import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../lib/ids.js';

@Entity({ tableName: 'webhooks' })
export class Webhook {
  [OptionalProps]?: 'id' | 'headers' | 'headersEnc' | 'metadata' | 'active' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('wh');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string' })
  url!: string;

  @Property({ type: 'string[]' })
  events!: string[];

  /** Header names, each with a masked value; the values themselves are in `headersEnc`. */
  @Property({ type: 'json' })
  headers: Record<string, string> = {};

  /** The custom headers, AES-256-GCM under SOUK_SECRET_KEY (see headers.ts). */
  @Property({ type: 'string', nullable: true, hidden: true })
  headersEnc: string | null = null;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'boolean' })
  active: boolean = true;

  /** AES-256-GCM under SOUK_SECRET_KEY; never leaves the server except right after minting. */
  @Property({ type: 'string', hidden: true })
  secretEnc!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'webhook_deliveries' })
export class WebhookDelivery {
  [OptionalProps]?: 'createdAt';

  /** The X-Svc-Delivery UUID. */
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @Property({ type: 'string' })
  webhookId!: string;

  @Property({ type: 'string' })
  event!: string;

  @Property({ type: 'boolean' })
  test!: boolean;

  @Property({ type: 'string' })
  url!: string;

  /** `success` or `failed`. */
  @Property({ type: 'string' })
  status!: string;

  @Property({ type: 'integer', nullable: true })
  statusCode!: number | null;

  @Property({ type: 'integer' })
  responseTimeMs!: number;

  @Property({ type: 'string', nullable: true })
  responseBody!: string | null;

  @Property({ type: 'string', nullable: true })
  error!: string | null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
