import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from './ids.js';

/** Mail kept instead of sent when no SMTP server is configured, for an operator to read. */
@Entity({ tableName: 'mail_outbox' })
export class OutboxMail {
  [OptionalProps]?: 'id' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('mail');

  @Property({ type: 'string' })
  toAddress!: string;

  @Property({ type: 'string' })
  subject!: string;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
