import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { UserCreateInput, UserPage, UserReplaceInput, UserType, UserUpdateInput } from '../auth/user.types.js';
import * as users from './user.service.js';

@Resolver()
export class UserResolver {
  @Allow(policies.user({ session: true }))
  @Query(() => UserPage, { description: 'Every account for platform admins; only the caller otherwise.' })
  async users(
    @GqlCtx() ctx: Ctx,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<UserPage> {
    const p = await users.listUsers(ctx, { limit, cursor });
    return { data: p.data.map(UserType.from), nextCursor: p.nextCursor };
  }

  @Allow(policies.user({ session: true }))
  @Query(() => UserType)
  async user(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<UserType> {
    return UserType.from(await users.getUser(ctx, id));
  }

  @Allow(policies.platformAdmin())
  @Mutation(() => UserType, { description: 'Platform admins create an account.' })
  async createUser(@GqlCtx() ctx: Ctx, @Arg('input', () => UserCreateInput) input: UserCreateInput): Promise<UserType> {
    return UserType.from(await users.createUser(ctx, input));
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => UserType)
  async updateUser(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('input', () => UserUpdateInput) input: UserUpdateInput): Promise<UserType> {
    return UserType.from(await users.updateUser(ctx, id, input));
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => UserType, { description: 'PUT: name and email required, the rest as in updateUser.' })
  async replaceUser(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('input', () => UserReplaceInput) input: UserReplaceInput): Promise<UserType> {
    return UserType.from(await users.updateUser(ctx, id, input));
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => Boolean, { description: 'Delete an account with its tokens and memberships.' })
  async deleteUser(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<boolean> {
    await users.deleteUser(ctx, id);
    return true;
  }
}
