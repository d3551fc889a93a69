import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { ComponentPolicy, ForkInput, TemplateComponentInput, TemplateComponentPage, TemplateComponentType, TemplateComponentUpdateInput } from './component.types.js';
import * as components from './component.service.js';

const READ = policies.store('store.read', { optional: 'public' });
const WRITE = policies.store('catalog.write');

@Resolver()
export class TemplateComponentResolver {
  @Allow(READ)
  @Query(() => TemplateComponentPage, { description: "A store's component library, newest first; without storeId, the marketplace (public and deprecated entries of every store)." })
  templateComponents(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID, { nullable: true }) storeId?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('policy', () => ComponentPolicy, { nullable: true }) policy?: string,
    @Arg('category', () => String, { nullable: true }) category?: string,
    @Arg('q', () => String, { nullable: true, description: 'Matches title, subtitle or category.' }) q?: string,
  ): Promise<TemplateComponentPage> {
    return components.listComponents(ctx, storeId, { limit, cursor, policy, category, q });
  }

  @Allow(READ)
  @Query(() => TemplateComponentType, { description: "With storeId, the store's entry; without, an unlisted, public or deprecated one." })
  templateComponent(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('storeId', () => ID, { nullable: true }) storeId?: string): Promise<TemplateComponentType> {
    return components.getComponent(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => TemplateComponentType)
  createTemplateComponent(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => TemplateComponentInput) input: TemplateComponentInput): Promise<TemplateComponentType> {
    return components.createComponent(ctx, storeId, input);
  }

  @Allow(WRITE)
  @Mutation(() => TemplateComponentType, { description: 'Changes the given fields.' })
  updateTemplateComponent(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => TemplateComponentUpdateInput) input: TemplateComponentUpdateInput,
  ): Promise<TemplateComponentType> {
    return components.updateComponent(ctx, storeId, id, input, 'patch');
  }

  @Allow(WRITE)
  @Mutation(() => TemplateComponentType, { description: 'Replaces every field; omitted ones take their defaults.' })
  replaceTemplateComponent(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => TemplateComponentInput) input: TemplateComponentInput,
  ): Promise<TemplateComponentType> {
    return components.updateComponent(ctx, storeId, id, input, 'replace');
  }

  @Allow(WRITE)
  @Mutation(() => Boolean)
  async deleteTemplateComponent(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await components.deleteComponent(ctx, storeId, id);
    return true;
  }

  @Allow(WRITE)
  @Mutation(() => TemplateComponentType, { description: 'A private copy in the store, with parentId pointing at the source.' })
  forkTemplateComponent(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ForkInput, { nullable: true }) input?: ForkInput,
  ): Promise<TemplateComponentType> {
    return components.forkComponent(ctx, storeId, id, input ?? {});
  }
}
