import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export const COMPONENT_POLICIES = ['private', 'unlisted', 'public', 'deprecated'] as const;
/** Policies anyone may read by id and fork; the marketplace lists `public` and `deprecated`. */
export const SHARED_POLICIES = ['unlisted', 'public', 'deprecated'];
export const MARKETPLACE_POLICIES = ['public', 'deprecated'];

@Entity({ tableName: 'template_components' })
export class TemplateComponent {
  [OptionalProps]?: 'id' | 'subtitle' | 'body' | 'category' | 'tags' | 'imageUrl' | 'slotsSchema' | 'slotsDefault' | 'parentId' | 'parentVersion' | 'version' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('tpc');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  title!: string;

  @Property({ type: 'string', nullable: true })
  subtitle: string | null = null;

  /** Markdown shown on the entry's detail page. */
  @Property({ type: 'text', nullable: true })
  body: string | null = null;

  @Property({ type: 'string', nullable: true })
  category: string | null = null;

  @Property({ type: 'json' })
  tags: string[] = [];

  @Property({ type: 'string', nullable: true })
  imageUrl: string | null = null;

  /** Stored text for the storefront editor; never executed here. */
  @Property({ type: 'text' })
  code!: string;

  @Property({ type: 'json' })
  propsSchema!: Record<string, unknown>;

  @Property({ type: 'json', nullable: true })
  slotsSchema: Record<string, unknown> | null = null;

  @Property({ type: 'json' })
  propsDefault!: Record<string, unknown>;

  @Property({ type: 'json', nullable: true })
  slotsDefault: Record<string, unknown> | null = null;

  /** `private`, `unlisted`, `public` or `deprecated`. */
  @Property({ type: 'string' })
  policy!: string;

  /** The entry this one was forked from, and that entry's version at the time. */
  @Property({ type: 'string', nullable: true })
  parentId: string | null = null;

  @Property({ type: 'integer', nullable: true })
  parentVersion: number | null = null;

  /** Increases when `code` or a schema changes. */
  @Property({ type: 'integer' })
  version: number = 1;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
