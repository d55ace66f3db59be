/** @jsxRuntime automatic @jsxImportSource preact */

import { href, type PageContext } from './layout';

// The list tools page by limit (no cursor): when more match than a page shows, the page offers the
// same query with twice the limit, until the tools' largest limit, past which only narrower filters
// help.

/** The largest `limit` a list tool accepts (tool-kit's LIST_LIMIT_MAX). */
const LIMIT_MAX = 1000;

export interface MorePagerProps {
  ctx: PageContext;
  /** The page's own path: the link asks it again. */
  path: string;
  /** The page's filters as given, kept in the link. */
  filters: Record<string, string | undefined>;
  /** The list tool's answer, or nothing when the call failed. */
  list: { limit: number; has_more: boolean } | undefined;
  /** What the list holds, plural ("files", "records"). */
  noun: string;
}

/** "More match than are shown", with a link to a bigger page; nothing when all are shown. */
export function MorePager({ ctx, path, filters, list, noun }: MorePagerProps) {
  if (!list?.has_more) return null;
  const moreLimit = String(Math.min(list.limit * 2, LIMIT_MAX));
  return (
    <p class="pager">
      {`More ${noun} match than are shown.`}{' '}
      {list.limit < LIMIT_MAX ? (
        <a href={href(path, ctx.projectId, { ...filters, limit: moreLimit })}>Show up to {moreLimit}</a>
      ) : (
        'Narrow the filters to see them.'
      )}
    </p>
  );
}
