import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export const PLATFORM_ROLES = ['user', 'admin'] as const;

@Entity({ tableName: 'users' })
export class User {
  [OptionalProps]?: 'id' | 'platformRole' | 'emailVerifiedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('usr');

  @Property({ type: 'string', unique: true })
  email!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', hidden: true })
  passwordHash!: string;

  /** Platform role: `user` or `admin`. */
  @Property({ type: 'string' })
  platformRole: string = 'user';

  @Property({ type: 'Date', nullable: true })
  emailVerifiedAt: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
