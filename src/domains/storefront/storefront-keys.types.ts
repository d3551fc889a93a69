import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { Length, Matches } from 'class-validator';
import { Page } from '../../lib/pagination.js';

/** A label a member reads in lists: one line of visible text. */
export const LABEL = /^(?!\s*$)[^\p{Cc}\p{Zl}\p{Zp}]*$/u;
export const LABEL_MESSAGE = 'must contain visible text and no control characters or line breaks';

@ObjectType('StorefrontKey', { description: 'A storefront server key (sfk_…) of a store; the key itself is shown only when created.' })
export class StorefrontKeyType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;
}

@ObjectType('StorefrontKeyWithSecret', { description: 'A storefront server key right after it was created, with the key: shown this once.' })
export class StorefrontKeyWithSecretType extends StorefrontKeyType {
  @Field(() => String, { description: '`sfk_` and 43 base64url characters; send it as X-Souk-Storefront-Key.' })
  key!: string;
}

export const StorefrontKeyPage = Page(StorefrontKeyType);

@InputType()
export class StorefrontKeyCreateInput {
  @Field(() => String, { description: '1 to 120 characters: what the key is for (the shop server that holds it).' })
  @Length(1, 120, { message: 'must be 1 to 120 characters' })
  @Matches(LABEL, { message: LABEL_MESSAGE })
  name!: string;
}
