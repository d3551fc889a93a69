import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { IsOptional, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { PAGE_STATUSES } from './page.entity.js';
import { SLUG_PATTERN } from '../../lib/slug.js';
import { graphqlEnum } from '../../core/enums.js';
import { NameText } from '../../core/input.js';

export const PageStatus = graphqlEnum('PageStatus', PAGE_STATUSES, 'Only `published` pages are served publicly.');

const SLUG_MESSAGE = 'must be lowercase letters, digits and single dashes (no "_")';
/** Markdown bodies up to 256 KiB. */
export const MAX_BODY = 256 * 1024;

@ObjectType('Seo')
export class SeoType {
  @Field(() => String, { nullable: true })
  title!: string | null;

  @Field(() => String, { nullable: true })
  description!: string | null;
}

@InputType()
export class SeoInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(300, { message: 'must be at most 300 characters' })
  @NameText()
  title?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(1000, { message: 'must be at most 1000 characters' })
  description?: string | null;
}

@ObjectType('Page')
export class PageType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String)
  slug!: string;

  @Field(() => String, { description: 'Markdown.' })
  body!: string;

  @Field(() => PageStatus)
  status!: string;

  @Field(() => GraphQLISODateTime, { nullable: true })
  publishedAt!: string | null;

  @Field(() => SeoType)
  seo!: SeoType;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class PagePage {
  @Field(() => [PageType])
  data!: PageType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

/** Create, and PUT (which replaces every field: omitted ones take their defaults). */
@InputType()
export class PageInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title!: string;

  @Field(() => String, { nullable: true, description: 'Derived from the title when omitted; unique per store; `view` is reserved.' })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => String, { nullable: true, description: 'Markdown; default empty.' })
  @IsOptional()
  @MaxLength(MAX_BODY, { message: `must be at most ${MAX_BODY} characters` })
  body?: string | null;

  @Field(() => PageStatus, { nullable: true, description: 'Default `draft`.' })
  @IsOptional()
  status?: string | null;

  @Field(() => SeoInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  seo?: SeoInput | null;
}

/** PATCH: the fields given change. */
@InputType()
export class PageUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'A new slug; the old one keeps answering the public view with a 301.' })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  slug?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(MAX_BODY, { message: `must be at most ${MAX_BODY} characters` })
  body?: string | null;

  @Field(() => PageStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => SeoInput, { nullable: true, description: 'The SEO fields given change.' })
  @IsOptional()
  @ValidateNested()
  seo?: SeoInput | null;
}

@ObjectType('PageView')
export class PageViewType {
  @Field(() => String, { description: "The page's current slug." })
  slug!: string;

  @Field(() => Boolean, { description: 'True when the slug asked for is an old one (REST: 301 to the current slug).' })
  moved!: boolean;

  @Field(() => String)
  title!: string;

  /** The stored HTML, or how to make it for a page stored before pages kept theirs (not a GraphQL field). */
  htmlSource!: () => string | Promise<string>;

  /** A resolver, not a property: it runs only when a query selects `html`, and its answer may be awaited. */
  @Field(() => String, { description: 'Sanitized HTML rendered from the Markdown body when the page was written.' })
  html(): string | Promise<string> {
    return this.htmlSource();
  }

  @Field(() => SeoType)
  seo!: SeoType;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;

  @Field(() => String, { description: 'A strong validator of this version of the page (REST: its ETag); it changes with every write.' })
  etag!: string;
}
