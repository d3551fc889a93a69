import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../lib/ids.js';

export interface BrandBrief {
  brandName: string;
  tone: string | null;
  keywords: string[];
  colors: string[];
}

export interface BrandPrimaries {
  logo: string | null;
  icon: string | null;
  cover: string | null;
  palette: string[] | null;
}

@Entity({ tableName: 'ai_brand_studios' })
export class BrandStudio {
  [OptionalProps]?: 'id' | 'status' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('bst');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'json' })
  brief!: BrandBrief;

  /** Asset ids picked for logo, icon and cover; the palette's colours. */
  @Property({ type: 'json' })
  primaries!: BrandPrimaries;

  /** `draft` or `ready`. */
  @Property({ type: 'string' })
  status: string = 'draft';

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** One queued image job of a studio: one kind, `n` assets. */
@Entity({ tableName: 'ai_generations' })
export class AiGeneration {
  [OptionalProps]?: 'id' | 'status' | 'progress' | 'colors' | 'error' | 'attempts' | 'jobId' | 'leaseUntil' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('gen');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  studioId!: string;

  /** `logo`, `icon`, `cover` or `palette`. */
  @Property({ type: 'string' })
  kind!: string;

  /** `pending`, `processing`, `completed` or `failed`. */
  @Property({ type: 'string' })
  status: string = 'pending';

  @Property({ type: 'float' })
  progress: number = 0;

  /** The prompt as sent to the provider, placeholders resolved. */
  @Property({ type: 'text' })
  prompt!: string;

  @Property({ type: 'string' })
  provider!: string;

  @Property({ type: 'string' })
  model!: string;

  @Property({ type: 'integer' })
  seed!: number;

  @Property({ type: 'integer' })
  n!: number;

  @Property({ type: 'integer' })
  width!: number;

  @Property({ type: 'integer' })
  height!: number;

  /** A palette's colours (its first swatch). */
  @Property({ type: 'json', nullable: true })
  colors: string[] | null = null;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  /** Attempts started; the queue allows three (two retries). */
  @Property({ type: 'integer' })
  attempts: number = 0;

  /** The queue job that runs it. */
  @Property({ type: 'uuid', nullable: true })
  jobId: string | null = null;

  /** A processing attempt's worker renews this; past it, the worker is taken for dead. */
  @Property({ type: 'Date', nullable: true })
  leaseUntil: Date | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();

  @Property({ type: 'Date' })
  updatedAt: Date = new Date();
}

/** A generated image; its bytes are read and written with SQL only, never loaded with the entity. */
@Entity({ tableName: 'ai_assets' })
export class AiAsset {
  [OptionalProps]?: 'id' | 'colors' | 'createdAt';

  @PrimaryKey({ type: 'string' })
  id: string = newId('ast');

  @Property({ type: 'string' })
  storeId!: string;

  @Property({ type: 'string' })
  studioId!: string;

  @Property({ type: 'string' })
  generationId!: string;

  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'string' })
  kind!: string;

  @Property({ type: 'string' })
  mime!: string;

  @Property({ type: 'string' })
  sha256!: string;

  @Property({ type: 'integer' })
  width!: number;

  @Property({ type: 'integer' })
  height!: number;

  @Property({ type: 'json', nullable: true })
  colors: string[] | null = null;

  @Property({ type: 'Date' })
  createdAt: Date = new Date();
}
