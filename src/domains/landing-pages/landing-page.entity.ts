import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

/** A product's landing page: orders it brought carry its id (`landingPageId`) for the analytics. */
@Entity({ tableName: 'product_landing_pages' })
export class ProductLandingPage {
  [OptionalProps]?: 'id' | 'productId' | 'status' | 'content' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('plp');

  @Property({ type: 'string' })
  storeId!: string;

  /** Null once the product is deleted (the page and its analytics stay). */
  @Property({ type: 'string', nullable: true })
  productId: string | null = null;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string' })
  slug!: string;

  /** `draft`, `published` or `archived`. */
  @Property({ type: 'string' })
  status: string = 'draft';

  /** The page's content as the storefront's page builder writes it; stored, never interpreted. */
  @Property({ type: 'json' })
  content: Record<string, unknown> = {};

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}
