import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, IsOptional, Length, MaxLength } from 'class-validator';
import { COMPONENT_POLICIES } from './component.entity.js';
import { graphqlEnum } from '../../core/enums.js';
import { IsHttpUrl, NameText } from '../../core/input.js';

export const ComponentPolicy = graphqlEnum('ComponentPolicy', COMPONENT_POLICIES, 'Who sees a component: only its store (`private`), anyone with its id (`unlisted`), the marketplace (`public`), or the marketplace marked as superseded (`deprecated`).');
/** Code is text for the storefront; 256 KiB is far above any component and well under the body limit. */
export const MAX_CODE = 256 * 1024;

@ObjectType('TemplateComponent')
export class TemplateComponentType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String, { nullable: true })
  subtitle!: string | null;

  @Field(() => String, { nullable: true, description: 'Markdown.' })
  body!: string | null;

  @Field(() => String, { nullable: true })
  category!: string | null;

  @Field(() => [String])
  tags!: string[];

  @Field(() => String, { nullable: true })
  imageUrl!: string | null;

  @Field(() => String, { description: 'Stored text, never executed by the service.' })
  code!: string;

  @Field(() => GraphQLJSONObject, { description: 'A JSON Schema (compiled with Ajv on write).' })
  propsSchema!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { nullable: true })
  slotsSchema!: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { description: 'Valid against propsSchema.' })
  propsDefault!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { nullable: true })
  slotsDefault!: Record<string, unknown> | null;

  @Field(() => ComponentPolicy)
  policy!: string;

  @Field(() => ID, { nullable: true, description: 'The entry this one was forked from.' })
  parentId!: string | null;

  @Field(() => Int, { nullable: true, description: "The source's version when this fork was made." })
  parentVersion!: number | null;

  @Field(() => Int, { description: 'Increases when code or a schema changes.' })
  version!: number;

  @Field(() => Boolean, { description: "A fork whose source's version moved past the one it was forked from." })
  updateAvailable!: boolean;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class TemplateComponentPage {
  @Field(() => [TemplateComponentType])
  data!: TemplateComponentType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

/** Create, and PUT (which replaces every field: omitted ones take their defaults). */
@InputType()
export class TemplateComponentInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title!: string;

  @Field(() => String)
  @MaxLength(MAX_CODE, { message: `must be at most ${MAX_CODE} characters` })
  code!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 300, { message: 'must be at most 300 characters' })
  @NameText()
  subtitle?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(65536, { message: 'must be at most 65536 characters' })
  body?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  category?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(50, { message: 'must hold at most 50 tags' })
  @Length(1, 50, { each: true, message: 'each tag must be 1 to 50 characters' })
  tags?: string[] | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  imageUrl?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Default `{}` (any props).' })
  @IsOptional()
  propsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  slotsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Default `{}`.' })
  @IsOptional()
  propsDefault?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  slotsDefault?: Record<string, unknown> | null;

  @Field(() => ComponentPolicy, { nullable: true, description: 'Default `private`.' })
  @IsOptional()
  policy?: string | null;
}

/** PATCH: the fields given change; `null` clears a nullable one. */
@InputType()
export class TemplateComponentUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(MAX_CODE, { message: `must be at most ${MAX_CODE} characters` })
  code?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 300, { message: 'must be at most 300 characters' })
  @NameText()
  subtitle?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(65536, { message: 'must be at most 65536 characters' })
  body?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  category?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(50, { message: 'must hold at most 50 tags' })
  @Length(1, 50, { each: true, message: 'each tag must be 1 to 50 characters' })
  tags?: string[] | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  imageUrl?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  propsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  slotsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  propsDefault?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  slotsDefault?: Record<string, unknown> | null;

  @Field(() => ComponentPolicy, { nullable: true })
  @IsOptional()
  policy?: string | null;
}

@InputType()
export class ForkInput {
  @Field(() => String, { nullable: true, description: "The copy's title; default the source's." })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  title?: string | null;
}
