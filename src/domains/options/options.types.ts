import { Field, GraphQLISODateTime, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { IsOptional } from 'class-validator';

@ObjectType('PlatformOption')
export class OptionType {
  @Field(() => String)
  key!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'Any JSON value (at most 64 KiB).' })
  value!: unknown;

  @Field(() => Boolean, { description: 'Public options appear in GET /v1/configs.' })
  public!: boolean;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class OptionList {
  @Field(() => [OptionType])
  data!: OptionType[];
}

@InputType()
export class OptionInput {
  @Field(() => GraphQLJSON, { nullable: true, description: 'Required (null is a value); at most 64 KiB of JSON.' })
  value?: unknown;

  @Field(() => Boolean, { nullable: true, description: 'Default false.' })
  @IsOptional()
  public?: boolean | null;
}

@ObjectType()
export class OptionPut {
  @Field(() => Boolean, { description: 'True when the key was new (REST: 201).' })
  created!: boolean;

  @Field(() => OptionType)
  option!: OptionType;
}

@ObjectType()
export class OptionsReload {
  @Field(() => Boolean)
  reloaded!: boolean;

  @Field(() => Int, { description: 'The options version every replica now follows.' })
  version!: number;
}

@ObjectType('ConfigFeatures')
export class FeaturesType {
  @Field(() => Boolean, { description: 'Mail goes out through SMTP.' })
  smtp!: boolean;

  @Field(() => Boolean, { description: 'AI image generation is usable.' })
  ai!: boolean;

  @Field(() => [String], { description: 'Payment providers stores can enable.' })
  payments!: string[];

  @Field(() => [String], { description: 'Carriers stores can connect.' })
  carriers!: string[];
}

@ObjectType('ConfigCurrency')
export class CurrencyType {
  @Field(() => String)
  code!: string;

  @Field(() => String)
  symbol!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Int, { description: 'Digits after the decimal point.' })
  precision!: number;
}

@ObjectType('ConfigLanguage')
export class LanguageType {
  @Field(() => String)
  code!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  nativeName!: string;
}

@ObjectType('Configs')
export class ConfigsType {
  @Field(() => GraphQLJSONObject, { description: 'Public option key → value.' })
  options!: Record<string, unknown>;

  @Field(() => FeaturesType)
  features!: FeaturesType;

  @Field(() => [CurrencyType])
  currencies!: CurrencyType[];

  @Field(() => [LanguageType])
  languages!: LanguageType[];
}
