import type { SqlFilter } from './filter';

// A time column within any of several ranges, as conditions the primary key can use: a statement
// that reads a few known records (the traces of a page) reads only the granules of their times,
// not every granule of the project.

/**
 * Ranges one condition names at most: more are merged across their smallest gaps. Each range adds
 * engine CPU to the statement; four keep apart the traces of a page spread over days (a user's),
 * and a page of the newest traces is one stretch of time anyway.
 */
export const MAX_TIME_RANGES = 4;

/** [from, to] in epoch ms, both ends included. */
export type MsRange = readonly [number, number];

/**
 * The ranges sorted, overlapping ones joined, and at most `max` left: the smallest gaps between
 * neighbours are closed first (the result covers every range given, and a little more).
 */
export function mergedRanges(ranges: readonly MsRange[], max = MAX_TIME_RANGES): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const joined: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = joined.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else joined.push([from, to]);
  }
  if (joined.length <= max) return joined;
  // Keep the max - 1 widest gaps open; close the others.
  const gaps = joined.slice(1).map((r, i) => ({ at: i + 1, width: r[0] - joined[i]![1] }));
  const open = new Set(
    gaps
      .sort((a, b) => b.width - a.width || a.at - b.at)
      .slice(0, max - 1)
      .map((g) => g.at),
  );
  const out: [number, number][] = [];
  joined.forEach((r, i) => {
    if (i === 0 || open.has(i)) out.push([r[0], r[1]]);
    else out.at(-1)![1] = Math.max(out.at(-1)![1], r[1]);
  });
  return out;
}

/**
 * `column` (a constant name of a DateTime64 column) within any of `ranges`, merged to at most
 * MAX_TIME_RANGES; the bounds go in as parameters `<prefix>_<i>_from` / `_to`.
 */
export function withinRanges(column: string, ranges: readonly MsRange[], prefix = 'range'): SqlFilter {
  const merged = mergedRanges(ranges);
  if (merged.length === 0) return { where: ['0'], params: {} };
  const params: Record<string, number> = {};
  const any = merged.map(([from, to], i) => {
    params[`${prefix}_${i}_from`] = from;
    params[`${prefix}_${i}_to`] = to;
    return `(${column} >= fromUnixTimestamp64Milli({${prefix}_${i}_from:Int64}, 'UTC') AND ${column} <= fromUnixTimestamp64Milli({${prefix}_${i}_to:Int64}, 'UTC'))`;
  });
  return { where: [`(${any.join(' OR ')})`], params };
}
