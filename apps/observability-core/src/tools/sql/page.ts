// Lists fetch one row more than `limit` to know whether more exist, and answer
// {items, limit, has_more} (docs/semantics.md): the page itself is tool-kit's, shared with
// identity's lists; this file adds the query every tool group's list runs.

import { fetchFor, type Page, pageOf } from '@svc/tool-kit';
import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from './filter';
import { pointQuery } from './point-query';

/** One page of a list: the rows of `from` matching `filter`, in `orderBy` (ties broken, so pages are stable). */
export interface PageQuery {
  /** The SELECT list. */
  columns: string;
  /** The table (with FINAL where a re-sent record must read as one). */
  from: string;
  filter: SqlFilter;
  /** Every column that breaks a tie, or two pages could show a row twice. */
  orderBy: string;
  limit: number;
  /** The filter finds its rows by the sort key or a bloom filter: a few granules (point-query.ts). */
  point?: boolean;
}

/** The list query of every tool group: `fetchFor(limit)` rows of the project, as a page of `limit`. */
export async function queryPage<R, T>(
  ctx: CoreToolContext,
  query: PageQuery,
  toItem: (row: R) => T,
): Promise<Page<T>> {
  const rows = await ctx.ch.query<R>(
    `SELECT ${query.columns} FROM ${query.from} WHERE ${whereOf(query.filter)}
     ORDER BY ${query.orderBy}
     LIMIT {fetch:UInt32} OFFSET {offset:UInt32}`,
    // The call's cursor says where the page starts in this order (ties broken: a stable order).
    paramsOf(query.filter, ctx.projectId, { fetch: fetchFor(query.limit), offset: ctx.offset ?? 0 }),
    query.point ? pointQuery(ctx.signal) : { signal: ctx.signal },
  );
  return pageOf(rows, query.limit, toItem);
}
