import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  AppCreateInput,
  AppPage,
  AppType,
  AppUpdateInput,
  AppUserDataSetInput,
  AppUserDataSetType,
  AppWithSecretType,
  AuthorizationCodeInput,
  AuthorizationCodeType,
  CodeConsumeInput,
  CodeInspectInput,
  CodeInspectionType,
  ConnectedAppType,
  MyAppDataSetType,
  OAuthTokenType,
} from './app.types.js';
import * as apps from './app.service.js';
import * as oauth from './oauth.service.js';
import * as appData from './app-data.service.js';

type Json = Record<string, unknown>;
// JSON data args skip class-validator (`validate: false`): a parsed literal is a null-prototype
// object it refuses, and free-form JSON has no fields to check; services enforce the size.

@Resolver()
export class AppResolver {
  @Allow(policies.user({ session: true }))
  @Query(() => AppPage, { description: "The caller's OAuth apps, newest first." })
  apps(
    @GqlCtx() ctx: Ctx,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<AppPage> {
    return apps.listApps(ctx, { limit, cursor });
  }

  @Allow(policies.user())
  @Query(() => AppType, { description: 'Any signed-in user may look an app up (consent screens).' })
  app(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<AppType> {
    return apps.getApp(ctx, id);
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => AppWithSecretType, { description: 'Register an app; the client secret is shown only here.' })
  createApp(@GqlCtx() ctx: Ctx, @Arg('input', () => AppCreateInput) input: AppCreateInput): Promise<AppWithSecretType> {
    return apps.createApp(ctx, input);
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => AppType)
  updateApp(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('input', () => AppUpdateInput) input: AppUpdateInput): Promise<AppType> {
    return apps.updateApp(ctx, id, input);
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => Boolean, { description: 'Delete an app; every token it holds stops working.' })
  async deleteApp(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<boolean> {
    await apps.deleteApp(ctx, id);
    return true;
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => AppWithSecretType, { description: 'A new client secret; the old one stops working at once.' })
  regenerateAppSecret(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<AppWithSecretType> {
    return apps.regenerateSecret(ctx, id);
  }

  @Allow(policies.user({ session: true }))
  @Mutation(() => AuthorizationCodeType, { description: 'The signed-in user authorizes an app (PKCE S256).' })
  createAuthorizationCode(@GqlCtx() ctx: Ctx, @Arg('input', () => AuthorizationCodeInput) input: AuthorizationCodeInput): Promise<AuthorizationCodeType> {
    return oauth.createAuthorizationCode(ctx, input);
  }

  @Allow(policies.public())
  @Mutation(() => OAuthTokenType, { description: 'The app exchanges a code for an access token.' })
  consumeAuthorizationCode(@GqlCtx() ctx: Ctx, @Arg('input', () => CodeConsumeInput) input: CodeConsumeInput): Promise<OAuthTokenType> {
    return oauth.consumeAuthorizationCode(ctx, input);
  }

  @Allow(policies.public())
  @Query(() => CodeInspectionType, { description: 'Who granted a code, to which app, with which scopes, and its state.' })
  inspectAuthorizationCode(@GqlCtx() ctx: Ctx, @Arg('input', () => CodeInspectInput) input: CodeInspectInput): Promise<CodeInspectionType> {
    return oauth.inspectAuthorizationCode(ctx, input);
  }

  @Allow(policies.user({ session: true }))
  @Query(() => [ConnectedAppType], { description: 'Apps holding live tokens of the caller.' })
  connectedApps(@GqlCtx() ctx: Ctx): Promise<ConnectedAppType[]> {
    return oauth.connectedApps(ctx);
  }

  @Allow(policies.user())
  @Query(() => GraphQLJSONObject, { description: 'Readable by anyone signed in.' })
  appPublicData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<Json> {
    return appData.getPublicData(ctx, id);
  }

  @Allow(policies.user())
  @Mutation(() => GraphQLJSONObject, { description: "Replace the app's public data (its owner; 64 KiB max)." })
  setAppPublicData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('data', () => GraphQLJSONObject, { validate: false }) data: Json): Promise<Json> {
    return appData.setPublicData(ctx, id, data);
  }

  @Allow(policies.user())
  @Query(() => GraphQLJSONObject, { description: "The app's owner or the app's own tokens only." })
  appPrivateData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<Json> {
    return appData.getPrivateData(ctx, id);
  }

  @Allow(policies.user())
  @Mutation(() => GraphQLJSONObject, { description: "Replace the app's private data (64 KiB max)." })
  setAppPrivateData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('data', () => GraphQLJSONObject, { validate: false }) data: Json): Promise<Json> {
    return appData.setPrivateData(ctx, id, data);
  }

  @Allow(policies.user())
  @Query(() => GraphQLJSONObject, { description: "The caller's data for this app ({} when none)." })
  myAppData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<Json> {
    return appData.getMyData(ctx, id);
  }

  @Allow(policies.user())
  @Mutation(() => GraphQLJSONObject, { description: "Replace the caller's data for this app (64 KiB max)." })
  setMyAppData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('data', () => GraphQLJSONObject, { validate: false }) data: Json): Promise<Json> {
    return appData.setMyData(ctx, id, data);
  }

  @Allow(policies.user())
  @Query(() => MyAppDataSetType, { description: "The caller's data for this app by visibility: the public part and the protected part the app writes (never the private one)." })
  myAppDataSet(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string): Promise<MyAppDataSetType> {
    return appData.getMyDataSet(ctx, id);
  }

  @Allow(policies.user())
  @Query(() => GraphQLJSONObject, { description: 'A connected user\'s data for this app (the owner or the app itself).' })
  appUserData(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('userId', () => ID) userId: string): Promise<Json> {
    return appData.getUserData(ctx, id, userId);
  }

  @Allow(policies.user())
  @Mutation(() => GraphQLJSONObject)
  setAppUserData(
    @GqlCtx() ctx: Ctx,
    @Arg('id', () => ID) id: string,
    @Arg('userId', () => ID) userId: string,
    @Arg('data', () => GraphQLJSONObject, { validate: false }) data: Json,
  ): Promise<Json> {
    return appData.setUserData(ctx, id, userId, data);
  }

  @Allow(policies.user())
  @Query(() => AppUserDataSetType, { description: "A connected user's data for this app, all three parts (the owner or the app itself)." })
  appUserDataSet(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('userId', () => ID) userId: string): Promise<AppUserDataSetType> {
    return appData.getUserDataSet(ctx, id, userId);
  }

  @Allow(policies.user())
  @Mutation(() => AppUserDataSetType, { description: "Replace the given parts of a connected user's data for this app (the owner or the app itself; the user writes only the public part, through setMyAppData)." })
  setAppUserDataSet(
    @GqlCtx() ctx: Ctx,
    @Arg('id', () => ID) id: string,
    @Arg('userId', () => ID) userId: string,
    @Arg('input', () => AppUserDataSetInput, { validate: false }) input: AppUserDataSetInput,
  ): Promise<AppUserDataSetType> {
    return appData.setUserDataSet(ctx, id, userId, input);
  }
}
