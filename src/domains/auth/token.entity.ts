import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** A bearer token; only its SHA-256 hash is stored. */
@Entity({ tableName: 'auth_tokens' })
export class AuthToken {
  [OptionalProps]?: 'id' | 'kind' | 'name' | 'scopes' | 'appId' | 'createdAt' | 'lastUsedAt' | 'expiresAt' | 'revokedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('tok');

  @Property({ type: 'string' })
  userId!: string;

  @Property({ type: 'string', unique: true, hidden: true })
  tokenHash!: string;

  /** `session` or `oauth`. */
  @Property({ type: 'string' })
  kind: string = 'session';

  @Property({ type: 'string', nullable: true })
  name: string | null = null;

  /** Null for sessions (all the user's rights); the granted scopes for OAuth tokens. */
  @Property({ type: 'string[]', nullable: true })
  scopes: string[] | null = null;

  @Property({ type: 'string', nullable: true })
  appId: string | null = null;

  @Property({ type: 'string' })
  last4!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'Date', nullable: true })
  revokedAt: Date | null = null;
}
