import { Field, Float, GraphQLISODateTime, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsInt, IsOptional, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { graphqlEnum } from '../../core/enums.js';
import { IsHttpUrl, NameText } from '../../core/input.js';

export const IMAGE_KINDS = ['logo', 'icon', 'cover', 'palette'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
export const STUDIO_STATUSES = ['draft', 'ready'] as const;
export const GENERATION_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export const ImageKind = graphqlEnum('ImageKind', IMAGE_KINDS);
export const BrandStudioStatus = graphqlEnum('BrandStudioStatus', STUDIO_STATUSES);
export const AiGenerationStatus = graphqlEnum('AiGenerationStatus', GENERATION_STATUSES);
const COLOR = /^#[0-9a-fA-F]{6}$/;

// ---------- prompt templates ----------

@ObjectType('ImagePromptTemplate')
export class ImagePromptTemplateType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: "Null for the platform's templates." })
  storeId!: string | null;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { description: 'Text with {{var}} placeholders, each declared in propsSchema.properties.' })
  prompt!: string;

  @Field(() => [String])
  tags!: string[];

  @Field(() => GraphQLJSONObject, { description: 'JSON Schema (an object schema) of the placeholders.' })
  propsSchema!: Record<string, unknown>;

  @Field(() => GraphQLJSONObject, { description: 'Default placeholder values, valid against propsSchema.' })
  props!: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  previewImageUrl!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class ImagePromptTemplatePage {
  @Field(() => [ImagePromptTemplateType])
  data!: ImagePromptTemplateType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class ImagePromptTemplateCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000, { message: 'must be at most 2000 characters' })
  description?: string | null;

  @Field(() => String)
  @Length(1, 4000, { message: 'must be 1 to 4000 characters' })
  prompt!: string;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(20, { message: 'must hold at most 20 tags' })
  @Length(1, 50, { each: true, message: 'each tag must be 1 to 50 characters' })
  tags?: string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  propsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  props?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2000, { message: 'must be at most 2000 characters' })
  previewImageUrl?: string | null;
}

@InputType()
export class ImagePromptTemplateUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(2000, { message: 'must be at most 2000 characters' })
  description?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 4000, { message: 'must be 1 to 4000 characters' })
  prompt?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(20, { message: 'must hold at most 20 tags' })
  @Length(1, 50, { each: true, message: 'each tag must be 1 to 50 characters' })
  tags?: string[] | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  propsSchema?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  props?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsHttpUrl()
  @MaxLength(2000, { message: 'must be at most 2000 characters' })
  previewImageUrl?: string | null;
}

// ---------- brand studios ----------

@ObjectType('BrandBrief')
export class BrandBriefType {
  @Field(() => String)
  brandName!: string;

  @Field(() => String, { nullable: true })
  tone!: string | null;

  @Field(() => [String])
  keywords!: string[];

  @Field(() => [String], { description: '#rrggbb colours.' })
  colors!: string[];
}

@ObjectType('BrandPrimaries')
export class BrandPrimariesType {
  @Field(() => ID, { nullable: true, description: 'The asset id of the chosen logo.' })
  logo!: string | null;

  @Field(() => ID, { nullable: true })
  icon!: string | null;

  @Field(() => ID, { nullable: true })
  cover!: string | null;

  @Field(() => [String], { nullable: true, description: 'The chosen #rrggbb colours.' })
  palette!: string[] | null;
}

@ObjectType('BrandStudio')
export class BrandStudioType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => BrandBriefType)
  brief!: BrandBriefType;

  @Field(() => BrandPrimariesType)
  primaries!: BrandPrimariesType;

  @Field(() => BrandStudioStatus)
  status!: string;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class BrandStudioPage {
  @Field(() => [BrandStudioType])
  data!: BrandStudioType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@ObjectType('AiAsset')
export class AiAssetType {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'A signed URL of the PNG, valid 24 h (GET /v1/ai/assets/{id} with a bearer token works too).' })
  url!: string;

  @Field(() => String, { description: 'Hex SHA-256 of the PNG bytes.' })
  sha256!: string;

  @Field(() => Int)
  width!: number;

  @Field(() => Int)
  height!: number;

  @Field(() => [String], { nullable: true, description: "A palette swatch's colours." })
  colors!: string[] | null;
}

@ObjectType('AiGeneration')
export class AiGenerationType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  studioId!: string;

  @Field(() => ImageKind)
  kind!: string;

  @Field(() => AiGenerationStatus)
  status!: string;

  @Field(() => Float, { description: '0 to 1.' })
  progress!: number;

  @Field(() => String, { description: 'The prompt sent, placeholders resolved.' })
  prompt!: string;

  @Field(() => String)
  provider!: string;

  @Field(() => String)
  model!: string;

  @Field(() => Int, { description: 'Asset i is made with seed + i.' })
  seed!: number;

  @Field(() => Int)
  n!: number;

  @Field(() => Int)
  width!: number;

  @Field(() => Int)
  height!: number;

  @Field(() => [String], { nullable: true, description: "A palette's colours (its first swatch)." })
  colors!: string[] | null;

  @Field(() => Int, { description: 'Attempts started (at most 3: two retries).' })
  attempts!: number;

  @Field(() => [AiAssetType])
  assets!: AiAssetType[];

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class AiGenerationPage {
  @Field(() => [AiGenerationType])
  data!: AiGenerationType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class BrandBriefInput {
  @Field(() => String, { nullable: true, description: 'Default: the studio name.' })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @NameText()
  brandName?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @MaxLength(200, { message: 'must be at most 200 characters' })
  tone?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(20, { message: 'must hold at most 20 keywords' })
  @Length(1, 50, { each: true, message: 'each keyword must be 1 to 50 characters' })
  keywords?: string[] | null;

  @Field(() => [String], { nullable: true, description: '#rrggbb colours.' })
  @IsOptional()
  @ArrayMaxSize(12, { message: 'must hold at most 12 colours' })
  @Matches(COLOR, { each: true, message: 'each colour must be #rrggbb' })
  colors?: string[] | null;
}

@InputType()
export class BrandGenerateInput {
  @Field(() => [ImageKind], { description: 'One generation each.' })
  @ArrayMinSize(1, { message: 'must name at least one kind' })
  @ArrayMaxSize(4, { message: 'must name at most 4 kinds' })
  @ArrayUnique({ message: 'must not repeat a kind' })
  kinds!: string[];

  @Field(() => Int, { nullable: true, defaultValue: 1, description: 'Assets per generation, 1 to 4.' })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 to 4' })
  @Max(4, { message: 'must be 1 to 4' })
  n?: number | null;

  @Field(() => ID, { nullable: true, description: "A platform template or one of the store's own." })
  @IsOptional()
  promptTemplateId?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: "Placeholder values over the template's props; needs promptTemplateId." })
  @IsOptional()
  props?: Record<string, unknown> | null;

  @Field(() => Int, { nullable: true, description: '0 to 2147483647; random when omitted.' })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 to 2147483647' })
  @Max(2147483647, { message: 'must be 0 to 2147483647' })
  seed?: number | null;
}

@InputType()
export class BrandStudioCreateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => BrandBriefInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  brief?: BrandBriefInput | null;

  @Field(() => BrandStudioStatus, { nullable: true, description: '`draft` (default) or `ready`.' })
  @IsOptional()
  status?: string | null;

  @Field(() => BrandGenerateInput, { nullable: true, description: 'Queue generations in the same request.' })
  @IsOptional()
  @ValidateNested()
  generate?: BrandGenerateInput | null;
}

@InputType()
export class BrandStudioUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => BrandBriefInput, { nullable: true, description: 'The fields given replace those of the brief.' })
  @IsOptional()
  @ValidateNested()
  brief?: BrandBriefInput | null;

  @Field(() => BrandStudioStatus, { nullable: true })
  @IsOptional()
  status?: string | null;

  @Field(() => BrandGenerateInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  generate?: BrandGenerateInput | null;
}

@InputType()
export class BrandPrimariesInput {
  @Field(() => ID, { nullable: true, description: 'A completed logo asset of this studio; null clears.' })
  logo?: string | null;

  @Field(() => ID, { nullable: true })
  icon?: string | null;

  @Field(() => ID, { nullable: true })
  cover?: string | null;

  @Field(() => [String], { nullable: true, description: '#rrggbb colours; null clears.' })
  @IsOptional()
  @ArrayMinSize(1, { message: 'must hold at least one colour' })
  @ArrayMaxSize(12, { message: 'must hold at most 12 colours' })
  @Matches(COLOR, { each: true, message: 'each colour must be #rrggbb' })
  palette?: string[] | null;
}
