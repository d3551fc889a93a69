import { Arg, Ctx as GqlCtx, Field, ID, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { Ctx } from '../core/context.js';
import { Allow, policies } from '../core/policy.js';
import { redeliver } from './redeliver.service.js';

@ObjectType('WebhookRedelivery')
export class RedeliveryType {
  @Field(() => ID)
  webhookId!: string;

  @Field(() => ID, { description: 'The new X-Svc-Delivery.' })
  deliveryId!: string;

  @Field(() => ID)
  redeliveryOf!: string;
}

@Resolver()
export class WebhookRedeliveryResolver {
  @Mutation(() => RedeliveryType, { description: "Queues a history entry's payload again as a new delivery." })
  @Allow(policies.store('webhooks.write'))
  redeliverWebhookDelivery(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('webhookId', () => ID) webhookId: string,
    @Arg('deliveryId', () => ID) deliveryId: string,
  ): Promise<RedeliveryType> {
    return redeliver(ctx, storeId, webhookId, deliveryId);
  }
}
