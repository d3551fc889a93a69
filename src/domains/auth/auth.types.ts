import { Field, InputType, ObjectType } from 'type-graphql';
import { IsEmail, Length, MaxLength, MinLength } from 'class-validator';
import { UserType } from '../users/user.types.js';

@InputType()
export class SignupInput {
  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;

  @Field(() => String)
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password!: string;

  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  name!: string;
}

@InputType()
export class SigninInput {
  @Field(() => String)
  @MaxLength(254)
  email!: string;

  @Field(() => String)
  @MaxLength(256)
  password!: string;
}

@ObjectType()
export class AuthPayload {
  @Field(() => String, { description: 'Opaque bearer token; shown only here.' })
  token!: string;

  @Field(() => UserType)
  user!: UserType;
}
