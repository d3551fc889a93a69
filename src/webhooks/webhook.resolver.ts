import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../core/context.js';
import { Allow, policies } from '../core/policy.js';
import {
  DeliveryType,
  SendItemType,
  UrlTestResultType,
  WebhookCreateInput,
  WebhookSendInput,
  WebhookTestInput,
  WebhookType,
  WebhookUpdateInput,
  WebhookUrlTestInput,
  WebhookWithSecretType,
} from './webhook.types.js';
import * as webhooks from './webhook.service.js';

@Resolver()
export class WebhookResolver {
  @Allow(policies.store('webhooks.read'))
  @Query(() => [WebhookType], { description: "A store's webhooks; secrets masked (hasSecret)." })
  webhooks(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string): Promise<WebhookType[]> {
    return webhooks.listWebhooks(ctx, storeId);
  }

  @Allow(policies.store('webhooks.read'))
  @Query(() => WebhookType)
  webhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<WebhookType> {
    return webhooks.getWebhook(ctx, storeId, id);
  }

  @Allow(policies.store('webhooks.read'))
  @Query(() => [DeliveryType], { description: 'Delivery attempts, newest first, at most 50.' })
  webhookHistory(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('webhookId', () => ID) webhookId: string): Promise<DeliveryType[]> {
    return webhooks.webhookHistory(ctx, storeId, webhookId);
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => WebhookWithSecretType, { description: 'The response carries the plaintext secret, once.' })
  createWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => WebhookCreateInput) input: WebhookCreateInput): Promise<WebhookWithSecretType> {
    return webhooks.createWebhook(ctx, storeId, input);
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => WebhookWithSecretType, { description: 'secret is set only when rotateSecret was true.' })
  updateWebhook(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => WebhookUpdateInput) input: WebhookUpdateInput,
  ): Promise<WebhookWithSecretType> {
    return webhooks.updateWebhook(ctx, storeId, id, input);
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => Boolean, { description: 'Deletes the webhook and its delivery history.' })
  async deleteWebhook(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await webhooks.deleteWebhook(ctx, storeId, id);
    return true;
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => DeliveryType, { description: 'Sends a sample delivery now with the saved configuration.' })
  testWebhook(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => WebhookTestInput, { nullable: true }) input?: WebhookTestInput,
  ): Promise<DeliveryType> {
    return webhooks.testWebhook(ctx, storeId, id, input ?? {});
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => UrlTestResultType, { description: 'Sends a sample delivery to a url that is not saved; not recorded.' })
  testWebhookUrl(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => WebhookUrlTestInput) input: WebhookUrlTestInput): Promise<UrlTestResultType> {
    return webhooks.testWebhookUrl(ctx, storeId, input);
  }

  @Allow(policies.store('webhooks.write'))
  @Mutation(() => [SendItemType], { description: 'Queues an event for delivery by hand: one delivery per webhook reached.' })
  sendWebhookEvent(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => WebhookSendInput) input: WebhookSendInput): Promise<SendItemType[]> {
    return webhooks.sendWebhookEvent(ctx, storeId, input);
  }
}
