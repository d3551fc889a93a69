import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  AiGenerationPage,
  AiGenerationStatus,
  BrandStudioStatus,
  ImageKind,
  BrandPrimariesInput,
  BrandStudioCreateInput,
  BrandStudioPage,
  BrandStudioType,
  BrandStudioUpdateInput,
  ImagePromptTemplateCreateInput,
  ImagePromptTemplatePage,
  ImagePromptTemplateType,
  ImagePromptTemplateUpdateInput,
} from './ai.types.js';
import * as studios from './brand-studio.service.js';
import * as generations from './generation.service.js';
import * as templates from './prompt-template.service.js';

@Resolver()
export class BrandStudioResolver {
  @Allow(policies.store('store.read'))
  @Query(() => BrandStudioPage, { description: "A store's brand studios, newest first." })
  brandStudios(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => BrandStudioStatus, { nullable: true }) status?: string,
  ): Promise<BrandStudioPage> {
    return studios.listStudios(ctx, storeId, { limit, cursor, status });
  }

  @Allow(policies.store('store.read'))
  @Query(() => BrandStudioType)
  brandStudio(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<BrandStudioType> {
    return studios.getStudio(ctx, storeId, id);
  }

  @Allow(policies.store('store.read'))
  @Query(() => AiGenerationPage, { description: "A studio's generations, newest first; progress also arrives as aiGenerationUpdated events." })
  brandStudioGenerations(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('kind', () => ImageKind, { nullable: true }) kind?: string,
    @Arg('status', () => AiGenerationStatus, { nullable: true }) status?: string,
  ): Promise<AiGenerationPage> {
    return generations.listGenerations(ctx, storeId, id, { limit, cursor, kind, status });
  }

  @Allow(policies.store('catalog.write'))
  @Mutation(() => BrandStudioType, { description: 'Create a brand studio; `generate` queues generations (422 LIMIT_EXCEEDED over the limits).' })
  createBrandStudio(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => BrandStudioCreateInput) input: BrandStudioCreateInput): Promise<BrandStudioType> {
    return studios.createStudio(ctx, storeId, input);
  }

  @Allow(policies.store('catalog.write'))
  @Mutation(() => BrandStudioType, { description: 'Update a brand studio; `generate` queues generations from the updated brief.' })
  updateBrandStudio(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => BrandStudioUpdateInput) input: BrandStudioUpdateInput,
  ): Promise<BrandStudioType> {
    return studios.updateStudio(ctx, storeId, id, input);
  }

  @Allow(policies.store('catalog.write'))
  @Mutation(() => Boolean, { description: 'Delete a brand studio with its generations and assets.' })
  async deleteBrandStudio(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await studios.deleteStudio(ctx, storeId, id);
    return true;
  }

  @Allow(policies.store('catalog.write'))
  @Mutation(() => BrandStudioType, { description: "Pick the studio's logo, icon and cover among its completed assets, and its palette colours." })
  setBrandStudioPrimaries(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => BrandPrimariesInput) input: BrandPrimariesInput,
  ): Promise<BrandStudioType> {
    return studios.setPrimaries(ctx, storeId, id, input);
  }
}

const STORE_OR_PLATFORM = 'Without storeId: the platform templates; with it: the store\'s own.';

@Resolver()
export class ImagePromptTemplateResolver {
  @Allow(policies.store('store.read', { optional: 'user' }))
  @Query(() => ImagePromptTemplatePage, { description: `Image prompt templates, newest first. ${STORE_OR_PLATFORM}` })
  imagePromptTemplates(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID, { nullable: true }) storeId?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('tag', () => String, { nullable: true }) tag?: string,
    @Arg('q', () => String, { nullable: true, description: 'Part of the name.' }) q?: string,
  ): Promise<ImagePromptTemplatePage> {
    return templates.listTemplates(ctx, storeId ?? null, { limit, cursor, tag, q });
  }

  @Allow(policies.store('store.read', { optional: 'user' }))
  @Query(() => ImagePromptTemplateType, { description: STORE_OR_PLATFORM })
  imagePromptTemplate(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('storeId', () => ID, { nullable: true }) storeId?: string): Promise<ImagePromptTemplateType> {
    return templates.getTemplate(ctx, storeId ?? null, id);
  }

  @Allow(policies.store('catalog.write', { optional: 'platform' }))
  @Mutation(() => ImagePromptTemplateType, { description: `Create an image prompt template (every {{var}} declared in propsSchema). ${STORE_OR_PLATFORM}` })
  createImagePromptTemplate(
    @GqlCtx() ctx: Ctx,
    @Arg('input', () => ImagePromptTemplateCreateInput) input: ImagePromptTemplateCreateInput,
    @Arg('storeId', () => ID, { nullable: true }) storeId?: string,
  ): Promise<ImagePromptTemplateType> {
    return templates.createTemplate(ctx, storeId ?? null, input);
  }

  @Allow(policies.store('catalog.write', { optional: 'platform' }))
  @Mutation(() => ImagePromptTemplateType, { description: STORE_OR_PLATFORM })
  updateImagePromptTemplate(
    @GqlCtx() ctx: Ctx,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ImagePromptTemplateUpdateInput) input: ImagePromptTemplateUpdateInput,
    @Arg('storeId', () => ID, { nullable: true }) storeId?: string,
  ): Promise<ImagePromptTemplateType> {
    return templates.updateTemplate(ctx, storeId ?? null, id, input);
  }

  @Allow(policies.store('catalog.write', { optional: 'platform' }))
  @Mutation(() => Boolean, { description: STORE_OR_PLATFORM })
  async deleteImagePromptTemplate(@GqlCtx() ctx: Ctx, @Arg('id', () => ID) id: string, @Arg('storeId', () => ID, { nullable: true }) storeId?: string): Promise<boolean> {
    await templates.deleteTemplate(ctx, storeId ?? null, id);
    return true;
  }
}
