import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Outbound } from '../../core/cost.js';
import { Allow, policies } from '../../core/policy.js';
import {
  Accepted,
  AuthPayload,
  MeUpdateInput,
  ResetConfirmInput,
  ResetConfirmResult,
  ResetRequestInput,
  ResetTokenStatus,
  RevokeAllInput,
  RevokeAllResult,
  SigninInput,
  SignupInput,
  TokenInput,
  TokenPage,
  TransferInput,
  TransferResult,
} from './auth.types.js';
import { UserType } from './user.types.js';
import * as auth from './auth.service.js';
import * as tokens from './token.service.js';
import * as recovery from './recovery.service.js';

@Resolver()
export class AuthResolver {
  @Allow(policies.public())
  @Mutation(() => AuthPayload, { description: 'Create an account and a session token; a verification mail is sent.' })
  async signup(@GqlCtx() ctx: Ctx, @Arg('input', () => SignupInput) input: SignupInput): Promise<AuthPayload> {
    const { token, user } = await auth.signup(ctx, input);
    return { token, user: UserType.from(user) };
  }

  @Allow(policies.public())
  @Mutation(() => AuthPayload, { description: 'Exchange email and password for a session token.' })
  async signin(@GqlCtx() ctx: Ctx, @Arg('input', () => SigninInput) input: SigninInput): Promise<AuthPayload> {
    const { token, user } = await auth.signin(ctx, input);
    return { token, user: UserType.from(user) };
  }

  @Allow(policies.user())
  @Mutation(() => Boolean, { description: 'Revoke the token this request carries.' })
  async signout(@GqlCtx() ctx: Ctx): Promise<boolean> {
    await auth.signout(ctx);
    return true;
  }

  @Allow(policies.user({ scope: 'profile' }))
  @Query(() => UserType, { description: 'The signed-in caller (an app token needs the profile scope).' })
  async me(@GqlCtx() ctx: Ctx): Promise<UserType> {
    return UserType.from(await auth.currentUser(ctx));
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => UserType, { description: "Change the caller's name, email or password." })
  async updateMe(@GqlCtx() ctx: Ctx, @Arg('input', () => MeUpdateInput) input: MeUpdateInput): Promise<UserType> {
    return UserType.from(await auth.updateMe(ctx, input));
  }

  @Allow(policies.user({ session: true }))
  @Query(() => TokenPage, { description: "The caller's live tokens, newest first." })
  myTokens(
    @GqlCtx() ctx: Ctx,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<TokenPage> {
    return tokens.listTokens(ctx, { limit, cursor });
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => Boolean, { description: 'Revoke one token (by token id) or every token of an app (by app id).' })
  async revokeToken(@GqlCtx() ctx: Ctx, @Arg('identifier', () => ID) identifier: string): Promise<boolean> {
    await tokens.revokeToken(ctx, identifier);
    return true;
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => RevokeAllResult, { description: "Revoke all the caller's tokens but this one (or all with includeCurrent)." })
  async revokeAllTokens(@GqlCtx() ctx: Ctx, @Arg('input', () => RevokeAllInput, { nullable: true }) input?: RevokeAllInput): Promise<RevokeAllResult> {
    return { revoked: await tokens.revokeAllTokens(ctx, input ?? {}) };
  }

  @Allow(policies.delegated('with a code: the code is the credential; without: a session', { anonymous: true }))
  @Mutation(() => TransferResult, { description: 'Signed in without a code: issue a transfer code. With a code: exchange it for a session.' })
  transferSession(@GqlCtx() ctx: Ctx, @Arg('input', () => TransferInput, { nullable: true }) input?: TransferInput): Promise<typeof TransferResult> {
    return tokens.transferSession(ctx, input ?? {}).then((r) => ('token' in r ? Object.assign(new AuthPayload(), { token: r.token, user: UserType.from(r.user) }) : r));
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => Accepted, { description: 'Send a new verification link to the caller.' })
  @Outbound()
  async resendVerificationEmail(@GqlCtx() ctx: Ctx): Promise<Accepted> {
    await recovery.resendVerification(ctx);
    return { accepted: true, message: 'A verification link is on its way' };
  }

  @Allow(policies.public())
  @Mutation(() => UserType, { description: 'Mark the email verified with the token from the link.' })
  async confirmEmailVerification(@GqlCtx() ctx: Ctx, @Arg('input', () => TokenInput) input: TokenInput): Promise<UserType> {
    return UserType.from(await recovery.confirmEmail(ctx, input));
  }

  @Allow(policies.public())
  @Mutation(() => Accepted, { description: 'Mail a reset link if the email has an account; answers the same either way.' })
  @Outbound()
  async requestPasswordReset(@GqlCtx() ctx: Ctx, @Arg('input', () => ResetRequestInput) input: ResetRequestInput): Promise<Accepted> {
    await recovery.requestPasswordReset(ctx, input);
    return { accepted: true, message: 'If an account uses this email, a reset link is on its way' };
  }

  @Allow(policies.public())
  @Query(() => ResetTokenStatus, { description: 'Whether a reset token can still be used.' })
  passwordResetStatus(@GqlCtx() ctx: Ctx, @Arg('token', () => String) token: string): Promise<ResetTokenStatus> {
    return recovery.passwordResetStatus(ctx, token);
  }

  @Allow(policies.public())
  @Mutation(() => ResetConfirmResult, { description: 'Set a new password with a reset token; signs out everywhere.' })
  async confirmPasswordReset(@GqlCtx() ctx: Ctx, @Arg('input', () => ResetConfirmInput) input: ResetConfirmInput): Promise<ResetConfirmResult> {
    return { passwordReset: true, revokedTokens: await recovery.confirmPasswordReset(ctx, input) };
  }
}
