import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ArrayMaxSize, IsOptional, Length, ValidateNested } from 'class-validator';
import { NameText } from '../../core/input.js';

@ObjectType('StoreTemplate')
export class StoreTemplateType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'Canonical BCP 47 tag of the default locale.' })
  defaultLocale!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class StoreTemplatePage {
  @Field(() => [StoreTemplateType])
  data!: StoreTemplateType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

@InputType()
export class StoreTemplateInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String, { nullable: true, description: 'BCP 47; canonicalized. The first locale added becomes the default when unset.' })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  defaultLocale?: string | null;
}

@InputType()
export class StoreTemplateUpdateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'Must be one of its locales once it has any.' })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  defaultLocale?: string | null;
}

@ObjectType('StoreTemplateLocale')
export class StoreTemplateLocaleType {
  @Field(() => String, { description: 'Canonical BCP 47 tag.' })
  locale!: string;

  @Field(() => GraphQLJSONObject, { description: 'Flat key → ICU MessageFormat message.' })
  messages!: Record<string, string>;

  @Field(() => Boolean)
  isDefault!: boolean;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('StoreTemplateLocales')
export class StoreTemplateLocalesType {
  @Field(() => String, { nullable: true })
  defaultLocale!: string | null;

  @Field(() => [String])
  locales!: string[];

  @Field(() => GraphQLJSONObject, { description: 'Locale → its messages.' })
  messages!: Record<string, Record<string, string>>;

  @Field(() => [StoreTemplateLocaleType])
  rows!: StoreTemplateLocaleType[];

  @Field(() => GraphQLJSONObject, { description: "Locale → {missing: keys of the default locale it lacks, percent: share of them it has (0..100)}." })
  coverage!: Record<string, { missing: string[]; percent: number }>;
}

@InputType()
export class StoreTemplateLocaleInput {
  @Field(() => String, { description: 'BCP 47; canonicalized (en-us → en-US).' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  locale!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Flat key → ICU message; default `{}`.' })
  @IsOptional()
  messages?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  isDefault?: boolean | null;
}

@InputType()
export class StoreTemplateLocalesInput {
  @Field(() => [StoreTemplateLocaleInput])
  @ArrayMaxSize(100, { message: 'must hold at most 100 locales' })
  @ValidateNested({ each: true })
  locales!: StoreTemplateLocaleInput[];
}

@InputType()
export class StoreTemplateLocaleUpdateInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Replaces the messages of the locale.' })
  @IsOptional()
  messages?: Record<string, unknown> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  isDefault?: boolean | null;
}

@ObjectType()
export class StoreTemplateLocalePut {
  @Field(() => Boolean, { description: 'True when the locale was added (REST: 201).' })
  created!: boolean;

  @Field(() => StoreTemplateLocaleType)
  locale!: StoreTemplateLocaleType;
}
