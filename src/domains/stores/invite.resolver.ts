import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { MemberType } from './store.types.js';
import { StoreInviteCreateInput, StoreInviteStatus, StoreInviteType } from './invite.types.js';
import * as invites from './invite.service.js';

@Resolver()
export class StoreInviteResolver {
  @Allow(policies.store('store.manage'))
  @Query(() => [StoreInviteType], { description: `The store's invites, newest first (at most ${invites.INVITE_LIST_MAX}).` })
  storeInvites(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('status', () => StoreInviteStatus, { nullable: true }) status?: string | null,
  ): Promise<StoreInviteType[]> {
    return invites.listInvites(ctx, storeId, status);
  }

  @Allow(policies.store('store.manage'))
  @Query(() => StoreInviteType)
  storeInvite(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<StoreInviteType> {
    return invites.getInvite(ctx, storeId, id);
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => StoreInviteType, { description: 'Mail an invitation to join the store with a role (valid 7 days unless expiresAt says otherwise).' })
  createStoreInvite(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => StoreInviteCreateInput) input: StoreInviteCreateInput): Promise<StoreInviteType> {
    return invites.createInvite(ctx, storeId, input);
  }

  @Allow(policies.store('store.manage'))
  @Mutation(() => StoreInviteType, { description: 'Revoke an invite: its link stops working. An accepted invite is a 409 (remove the member instead).' })
  revokeStoreInvite(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<StoreInviteType> {
    return invites.revokeInvite(ctx, storeId, id);
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => MemberType, { description: "Accept an invite with the token from its mail: the signed-in account, which must have the invite's email, becomes a member with its role." })
  acceptStoreInvite(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('token', () => String) token: string,
  ): Promise<MemberType> {
    return invites.acceptInvite(ctx, storeId, id, token);
  }
}
