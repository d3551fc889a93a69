import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** An image prompt template: the platform's (`storeId` null) or a store's own. */
@Entity({ tableName: 'ai_prompt_templates' })
export class ImagePromptTemplate {
  [OptionalProps]?: 'id' | 'storeId' | 'description' | 'tags' | 'propsSchema' | 'props' | 'previewImageUrl' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('ipt');

  @Property({ type: 'string', nullable: true })
  storeId: string | null = null;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', nullable: true })
  description: string | null = null;

  /** Text with `{{var}}` placeholders, each declared in `propsSchema.properties`. */
  @Property({ type: 'text' })
  prompt!: string;

  @Property({ type: 'string[]' })
  tags: string[] = [];

  @Property({ type: 'json' })
  propsSchema: Record<string, unknown> = {};

  /** Default values of the placeholders, valid against `propsSchema`. */
  @Property({ type: 'json' })
  props: Record<string, unknown> = {};

  @Property({ type: 'string', nullable: true })
  previewImageUrl: string | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
