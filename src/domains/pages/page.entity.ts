import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export const PAGE_STATUSES = ['draft', 'published'] as const;

export interface Seo {
  title: string | null;
  description: string | null;
}

@Entity({ tableName: 'pages' })
export class Page {
  [OptionalProps]?: 'id' | 'body' | 'html' | 'version' | 'status' | 'publishedAt' | 'seo' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('pg');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  title!: string;

  @Property({ type: 'string' })
  slug!: string;

  /** Markdown. */
  @Property({ type: 'text' })
  body: string = '';

  /** The body rendered to sanitized HTML when it was written; null for pages written before that (their first view fills it). */
  @Property({ type: 'text', nullable: true, lazy: true })
  html: string | null = null;

  /** Counts the page's writes; the public view's ETag. */
  @Property({ type: 'integer' })
  version: number = 1;

  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'Date', nullable: true })
  publishedAt: Date | null = null;

  @Property({ type: 'json' })
  seo: Seo = { title: null, description: null };

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** A slug a page left behind when renamed: the public view answers it with a 301. */
@Entity({ tableName: 'page_redirects' })
export class PageRedirect {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'string' })
  storeId!: string;

  @PrimaryKey({ type: 'string' })
  slug!: string;

  @Property({ type: 'string' })
  pageId!: string;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
