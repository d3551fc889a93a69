import { invalid } from '../core/errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export function pageLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw invalid('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** Fetch one more than asked: its presence says there is a next page. */
export function page<T extends { id: string }>(rows: T[], limit: number): { data: T[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  return { data, nextCursor: rows.length > limit ? data[data.length - 1].id : null };
}
