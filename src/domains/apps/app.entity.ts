import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** A developer's OAuth app; its id is the client id, the client secret is kept hashed. */
@Entity({ tableName: 'oauth_apps' })
export class OAuthApp {
  [OptionalProps]?: 'id' | 'description' | 'homepageUrl' | 'publicData' | 'privateData' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('app');

  @Property({ type: 'string' })
  ownerId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', nullable: true })
  description: string | null = null;

  @Property({ type: 'string', nullable: true })
  homepageUrl: string | null = null;

  @Property({ type: 'string[]' })
  redirectUris!: string[];

  /** The most an authorization may grant. */
  @Property({ type: 'string[]' })
  scopes!: string[];

  @Property({ type: 'string', hidden: true })
  secretHash!: string;

  @Property({ type: 'json' })
  publicData: Record<string, unknown> = {};

  @Property({ type: 'json' })
  privateData: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}

/** An authorization code (PKCE S256), single use, exchanged for an OAuth token. */
@Entity({ tableName: 'oauth_codes' })
export class AuthorizationCode {
  [OptionalProps]?: 'id' | 'state' | 'consumedAt' | 'tokenId' | 'sessionId' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('ac');

  @Property({ type: 'string', unique: true, hidden: true })
  codeHash!: string;

  @Property({ type: 'string' })
  appId!: string;

  @Property({ type: 'string' })
  userId!: string;

  @Property({ type: 'string' })
  redirectUri!: string;

  @Property({ type: 'string[]' })
  scopes!: string[];

  @Property({ type: 'string', nullable: true })
  state: string | null = null;

  @Property({ type: 'string' })
  codeChallenge!: string;

  @Property({ type: 'string' })
  codeChallengeMethod!: string;

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  consumedAt: Date | null = null;

  /** The token the code was exchanged for: a replayed code revokes it (RFC 6749 4.1.2). */
  @Property({ type: 'string', nullable: true })
  tokenId: string | null = null;

  /** The session that consented: the code dies with it (sign-out, revoke-all, a password change or reset). */
  @Property({ type: 'string', nullable: true })
  sessionId: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}

/**
 * What an app keeps about one of its users, by who sees it: `data` is the public part (the user
 * and the app read and write it), `privateData` only the app and its owner see, `protectedData`
 * the app writes and the user reads.
 */
@Entity({ tableName: 'app_user_data' })
export class AppUserData {
  [OptionalProps]?: 'data' | 'privateData' | 'protectedData' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  appId!: string;

  @PrimaryKey({ type: 'string' })
  userId!: string;

  @Property({ type: 'json' })
  data: Record<string, unknown> = {};

  @Property({ type: 'json' })
  privateData: Record<string, unknown> = {};

  @Property({ type: 'json' })
  protectedData: Record<string, unknown> = {};

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
