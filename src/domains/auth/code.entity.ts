import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export type CodePurpose = 'verify_email' | 'reset_password' | 'transfer';

/** A single-use secret sent in a link or handed to another device; only its SHA-256 is kept. */
@Entity({ tableName: 'user_codes' })
export class UserCode {
  [OptionalProps]?: 'id' | 'email' | 'sessionId' | 'usedAt' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('uc');

  @Property({ type: 'string' })
  userId!: string;

  @Property({ type: 'string' })
  purpose!: CodePurpose;

  @Property({ type: 'string', unique: true, hidden: true })
  codeHash!: string;

  /** For verification and reset links: the address the link was sent to (a later change voids it). */
  @Property({ type: 'string', nullable: true })
  email: string | null = null;

  /** For transfer codes: the session that asked for it; the code dies with that session. */
  @Property({ type: 'string', nullable: true })
  sessionId: string | null = null;

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  usedAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
