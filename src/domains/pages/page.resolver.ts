import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { PageInput, PagePage, PageStatus, PageType, PageUpdateInput, PageViewType } from './page.types.js';
import * as pages from './page.service.js';

const READ = policies.store('store.read');
const WRITE = policies.store('catalog.write');

@Resolver()
export class PageResolver {
  @Allow(READ)
  @Query(() => PagePage, { description: "A store's pages, newest first." })
  pages(
    @GqlCtx() ctx: Ctx,
    @Arg('storeId', () => ID) storeId: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('status', () => PageStatus, { nullable: true }) status?: string,
  ): Promise<PagePage> {
    return pages.listPages(ctx, storeId, { limit, cursor, status });
  }

  @Allow(READ)
  @Query(() => PageType, { description: 'A page by id (`pg_…`) or by slug.' })
  page(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => String, { description: 'An id or a slug.' }) id: string): Promise<PageType> {
    return pages.getPage(ctx, storeId, id);
  }

  @Allow(WRITE)
  @Mutation(() => PageType)
  createPage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('input', () => PageInput) input: PageInput): Promise<PageType> {
    return pages.createPage(ctx, storeId, input);
  }

  @Allow(WRITE)
  @Mutation(() => PageType, { description: 'Changes the given fields.' })
  updatePage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Arg('input', () => PageUpdateInput) input: PageUpdateInput): Promise<PageType> {
    return pages.updatePage(ctx, storeId, id, input, 'patch');
  }

  @Allow(WRITE)
  @Mutation(() => PageType, { description: 'Replaces every field (omitted ones take their defaults; the slug stays when omitted).' })
  replacePage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Arg('input', () => PageInput) input: PageInput): Promise<PageType> {
    return pages.updatePage(ctx, storeId, id, input, 'replace');
  }

  @Allow(WRITE)
  @Mutation(() => Boolean)
  async deletePage(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await pages.deletePage(ctx, storeId, id);
    return true;
  }

  @Allow(policies.public())
  @Query(() => PageViewType, { description: 'A published page rendered to sanitized HTML, for anyone.' })
  pageView(@GqlCtx() ctx: Ctx, @Arg('storeId', () => ID) storeId: string, @Arg('slug', () => String) slug: string): Promise<PageViewType> {
    return pages.viewPage(ctx, storeId, slug);
  }
}
