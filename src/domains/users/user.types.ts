import { Field, ID, ObjectType } from 'type-graphql';
import type { User } from './user.entity.js';

@ObjectType('User', { description: 'A person with an account; never carries a password hash.' })
export class UserType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: '`user` or `admin` (platform administration).' })
  platformRole!: string;

  @Field(() => Boolean)
  emailVerified!: boolean;

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
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    });
  }
}
