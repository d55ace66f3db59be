// A list answers {items, limit, has_more} (`listOf` in schemas.ts): it reads one row more than
// `limit`, and that row only says whether more exist.

export interface Page<T> {
  items: T[];
  limit: number;
  has_more: boolean;
}

/** Rows to read for a page of `limit`. */
export const fetchFor = (limit: number): number => limit + 1;

/** The page of `limit` out of `fetchFor(limit)` rows, each made an item by `toItem` when given. */
export function pageOf<R>(rows: readonly R[], limit: number): Page<R>;
export function pageOf<R, T>(rows: readonly R[], limit: number, toItem: (row: R) => T): Page<T>;
export function pageOf<R, T>(rows: readonly R[], limit: number, toItem?: (row: R) => T): Page<R | T> {
  const kept = rows.slice(0, limit);
  return { items: toItem ? kept.map(toItem) : kept, limit, has_more: rows.length > limit };
}
