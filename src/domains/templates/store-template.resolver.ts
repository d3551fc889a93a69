import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import {
  StoreTemplateInput,
  StoreTemplateLocaleInput,
  StoreTemplateLocalePut,
  StoreTemplateLocalesInput,
  StoreTemplateLocalesType,
  StoreTemplateLocaleType,
  StoreTemplateLocaleUpdateInput,
  StoreTemplatePage,
  StoreTemplateType,
  StoreTemplateUpdateInput,
} from './store-template.types.js';
import * as templates from './store-template.service.js';

const READ = policies.store('store.read');
const WRITE = policies.store('catalog.write');

@Resolver()
export class StoreTemplateResolver {
  @Allow(READ)
  @Query(() => StoreTemplatePage, { description: "A store's templates, newest first." })
  storeTemplates(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
  ): Promise<StoreTemplatePage> {
    return templates.listTemplates(ctx, storeId, { limit, cursor });
  }

  @Allow(READ)
  @Query(() => StoreTemplateType)
  storeTemplate(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<StoreTemplateType> {
    return templates.getTemplate(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => StoreTemplateType)
  createStoreTemplate(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => StoreTemplateInput) input: StoreTemplateInput): Promise<StoreTemplateType> {
    return templates.createTemplate(ctx, storeId, input);
  }

  @Allow(WRITE)
  @Mutation(() => StoreTemplateType)
  updateStoreTemplate(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => StoreTemplateUpdateInput) input: StoreTemplateUpdateInput,
  ): Promise<StoreTemplateType> {
    return templates.updateTemplate(ctx, storeId, id, input);
  }

  @Allow(WRITE)
  @Mutation(() => Boolean, { description: 'Deletes the template with its locales.' })
  async deleteStoreTemplate(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await templates.deleteTemplate(ctx, storeId, id);
    return true;
  }

  @Allow(READ)
  @Query(() => StoreTemplateLocalesType, { description: "A template's locales with their messages and coverage." })
  storeTemplateLocales(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<StoreTemplateLocalesType> {
    return templates.listLocales(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => StoreTemplateLocaleType, { description: 'Adds a locale (409 when it exists).' })
  createStoreTemplateLocale(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => StoreTemplateLocaleInput) input: StoreTemplateLocaleInput,
  ): Promise<StoreTemplateLocaleType> {
    return templates.createLocale(ctx, storeId, id, input);
  }

  @Allow(WRITE)
  @Mutation(() => StoreTemplateLocalesType, { description: 'Replaces the whole set of locales.' })
  replaceStoreTemplateLocales(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => StoreTemplateLocalesInput) input: StoreTemplateLocalesInput,
  ): Promise<StoreTemplateLocalesType> {
    return templates.replaceLocales(ctx, storeId, id, input);
  }

  @Allow(WRITE)
  @Mutation(() => StoreTemplateLocalePut, { description: 'Creates or updates one locale.' })
  putStoreTemplateLocale(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('locale', () => String) locale: string,
    @Arg('input', () => StoreTemplateLocaleUpdateInput) input: StoreTemplateLocaleUpdateInput,
  ): Promise<StoreTemplateLocalePut> {
    return templates.putLocale(ctx, storeId, id, locale, input);
  }

  @Allow(WRITE)
  @Mutation(() => Boolean, { description: 'Removes a locale; the default only when it is the last one (409 otherwise).' })
  async deleteStoreTemplateLocale(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID) id: string,
    @Arg('locale', () => String) locale: string,
  ): Promise<boolean> {
    await templates.deleteLocale(ctx, storeId, id, locale);
    return true;
  }
}
