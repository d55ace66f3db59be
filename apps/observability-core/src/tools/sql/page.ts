// Lists fetch one row more than `limit` to know whether more exist, and answer
// {items, limit, has_more} (docs/semantics.md).

export interface Page<T> {
  items: T[];
  limit: number;
  has_more: boolean;
}

/** Rows to fetch for a page of `limit`. */
export const fetchFor = (limit: number): number => limit + 1;

/** The page of `limit` out of `fetchFor(limit)` rows. */
export function pageOf<R, T>(rows: readonly R[], limit: number, toItem: (row: R) => T): Page<T> {
  return { items: rows.slice(0, limit).map(toItem), limit, has_more: rows.length > limit };
}
