import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

@Entity({ tableName: 'store_templates' })
export class StoreTemplate {
  [OptionalProps]?: 'id' | 'defaultLocale' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('stt');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  /** Canonical BCP 47; the locale other locales' coverage is measured against. */
  @Property({ type: 'string', nullable: true })
  defaultLocale: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

@Entity({ tableName: 'store_template_locales' })
export class StoreTemplateLocale {
  [OptionalProps]?: 'messages' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', fieldName: 'template_id' })
  templateId!: string;

  @PrimaryKey({ type: 'string' })
  locale!: string;

  /** Flat key → ICU MessageFormat text. */
  @Property({ type: 'json' })
  messages: Record<string, string> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
