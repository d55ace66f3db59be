/**
 * How a tool pages an answer that is not a list of `items` (trace.get: the spans of one trace by
 * start time, drawn as a tree). Its output has `has_more` and `next_cursor` like a list page, so it
 * takes a `cursor` that the backends' tool route opens into the page's offset; these two pure
 * functions of the answer tell the route where the next page starts and the executor how to cut
 * the answer to a result budget, which neither could know from the answer's shape.
 */
export interface PagedAnswer<A = Record<string, unknown>> {
  /** Entries of the answer's page: the next page starts this many after the page's own offset. */
  length(answer: A): number;
  /**
   * The answer within `budget` characters of JSON: the first entries of its page that fit (at least
   * one, else a cursor would point at the same place forever), marked as cut (`truncated`,
   * `omitted`), with `has_more` and the `next_cursor` that `cursorAt(kept)` seals (undefined when
   * none can be made).
   */
  cut(answer: A, budget: number, cursorAt: (kept: number) => string | undefined): A;
}

/**
 * The largest n in 0..total with fits(n), by halving: how many entries of a page (or a list) a
 * result budget keeps. `fits` must be monotone (fewer entries never make a longer answer).
 */
export function mostThatFit(total: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = total;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}
