import { Field, ObjectType, getMetadataStorage, type ClassType } from 'type-graphql';
import { invalid } from '../core/errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export function pageLimit(limit: number | null | undefined, bounds: { max: number; fallback: number } = { max: MAX_LIMIT, fallback: DEFAULT_LIMIT }): number {
  if (limit === null || limit === undefined) return bounds.fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > bounds.max) throw invalid('limit', `must be an integer from 1 to ${bounds.max}`);
  return limit;
}

/** Fetch one more than asked: its presence says there is a next page. */
export function page<T extends { id: string }>(rows: T[], limit: number): { data: T[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  return { data, nextCursor: rows.length > limit ? data[data.length - 1].id : null };
}

/**
 * The one GraphQL page type: `Page(ProductType)` is the object type `ProductPage`
 * `{ data: [Product!]!, nextCursor: String }`, named after the item's GraphQL type.
 */
export function Page<T extends object>(item: ClassType<T>) {
  const meta = getMetadataStorage().objectTypes.find((t) => t.target === item);
  if (!meta) throw new Error(`Page(${item.name}): the item must be an @ObjectType declared before its page`);
  @ObjectType(`${meta.name}Page`)
  class PageType {
    @Field(() => [item])
    data!: T[];

    @Field(() => String, { nullable: true, description: 'Pass as cursor for the next page; null on the last one.' })
    nextCursor!: string | null;
  }
  return PageType;
}
