import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/**
 * An invitation to join a store, mailed to an address. Only the SHA-256 of its token is kept;
 * the status is read from the dates (accepted, revoked, past `expiresAt`, else pending).
 */
@Entity({ tableName: 'store_invites' })
export class StoreInvite {
  [OptionalProps]?: 'id' | 'metadata' | 'acceptedAt' | 'acceptedBy' | 'revokedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('inv');

  @Property({ type: 'string' })
  storeId!: string;

  /** Normalized as account emails are: the account that accepts must have this one. */
  @Property({ type: 'string' })
  email!: string;

  /** The role the member gets: `owner`, `admin`, `editor` or `viewer`. */
  @Property({ type: 'string' })
  role!: string;

  /** The member who sent it (kept as it was, should that account go). */
  @Property({ type: 'string' })
  invitedBy!: string;

  @Property({ type: 'string', unique: true, hidden: true })
  tokenHash!: string;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  acceptedAt: Date | null = null;

  @Property({ type: 'string', nullable: true })
  acceptedBy: string | null = null;

  @Property({ type: 'Date', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
