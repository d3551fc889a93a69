import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { IsEmail, Length, MaxLength, MinLength } from 'class-validator';
import { PLATFORM_ROLES } from './user.entity.js';
import { graphqlEnum } from '../../core/enums.js';
import type { User } from './user.entity.js';
import { Page } from '../../lib/pagination.js';
import { NameText } from '../../core/input.js';

export const PlatformRole = graphqlEnum('PlatformRole', PLATFORM_ROLES, '`admin` administers the platform (users, options); everyone else is a `user`.');

@ObjectType('User', { description: 'A person with an account; never carries a password hash.' })
export class UserType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => PlatformRole)
  platformRole!: string;

  @Field(() => Boolean)
  emailVerified!: boolean;

  @Field(() => Date, { nullable: true, description: 'When the email address was verified; null until then.' })
  emailVerifiedAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;

  static from(user: User): UserType {
    return Object.assign(new UserType(), {
      id: user.id,
      email: user.email,
      name: user.name,
      platformRole: user.platformRole,
      emailVerified: user.emailVerifiedAt !== null,
      emailVerifiedAt: user.emailVerifiedAt,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    });
  }
}

export const UserPage = Page(UserType);
export type UserPage = InstanceType<typeof UserPage>;

@InputType({ description: 'Admin-only account creation.' })
export class UserCreateInput {
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
  @NameText()
  name!: string;

  @Field(() => PlatformRole, { nullable: true, defaultValue: 'user' })
  platformRole?: string;
}

@InputType({ description: 'Fields to change. platformRole: admins only. A password change by the user needs currentPassword.' })
export class UserUpdateInput {
  @Field(() => String, { nullable: true })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string;

  @Field(() => String, { nullable: true })
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email?: string;

  @Field(() => String, { nullable: true })
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password?: string;

  @Field(() => String, { nullable: true })
  @MaxLength(256)
  currentPassword?: string;

  @Field(() => PlatformRole, { nullable: true })
  platformRole?: string;
}

@InputType({ description: 'The whole editable user: name and email are required.' })
export class UserReplaceInput {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;

  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;

  @Field(() => String, { nullable: true })
  @MinLength(8, { message: 'must be at least 8 characters' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  password?: string;

  @Field(() => String, { nullable: true })
  @MaxLength(256)
  currentPassword?: string;

  @Field(() => PlatformRole, { nullable: true })
  platformRole?: string;
}
