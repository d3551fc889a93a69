import { Arg, Ctx as GqlCtx, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../server/context.js';
import { AuthPayload, SigninInput, SignupInput } from './auth.types.js';
import { UserType } from '../users/user.types.js';
import * as auth from './auth.service.js';

@Resolver()
export class AuthResolver {
  @Mutation(() => AuthPayload, { description: 'Create an account and a session token.' })
  async signup(@GqlCtx() ctx: Ctx, @Arg('input', () => SignupInput) input: SignupInput): Promise<AuthPayload> {
    const { token, user } = await auth.signup(ctx, input);
    return { token, user: UserType.from(user) };
  }

  @Mutation(() => AuthPayload, { description: 'Exchange email and password for a session token.' })
  async signin(@GqlCtx() ctx: Ctx, @Arg('input', () => SigninInput) input: SigninInput): Promise<AuthPayload> {
    const { token, user } = await auth.signin(ctx, input);
    return { token, user: UserType.from(user) };
  }

  @Mutation(() => Boolean, { description: 'Revoke the token this request carries.' })
  async signout(@GqlCtx() ctx: Ctx): Promise<boolean> {
    await auth.signout(ctx);
    return true;
  }

  @Query(() => UserType, { description: 'The signed-in caller.' })
  async me(@GqlCtx() ctx: Ctx): Promise<UserType> {
    return UserType.from(await auth.currentUser(ctx));
  }
}
