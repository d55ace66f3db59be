import type { SqlFilter } from './filter';

// Text search (`search`, `q` parameters): a case-insensitive literal substring. %, _, *, quotes and
// regex characters match themselves: the needle is always a bound value.

/** LIKE treats %, _ and \ specially; escaped, they match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to detect non-ASCII
const ASCII = /^[\x00-\x7F]*$/;

/**
 * `needles` found in any of `columns` (constant SQL expressions). An ASCII needle is matched as
 * `lower(col) LIKE '%needle%'` with the wildcards escaped: for `lower(message)` that is the
 * expression of the logs' ngram bloom-filter index, so ClickHouse can skip granules. ClickHouse's
 * `lower` folds ASCII only, so a needle with other letters uses `positionCaseInsensitiveUTF8`,
 * which folds Unicode. Parameters are named `<param>_<i>`.
 */
export function containsAny(
  columns: readonly string[],
  needles: readonly string[],
  param: string,
): SqlFilter {
  const params: Record<string, string> = {};
  const conditions: string[] = [];
  [...new Set(needles)].forEach((needle, i) => {
    const name = `${param}_${i}`;
    if (ASCII.test(needle)) {
      params[name] = `%${escapeLike(needle.toLowerCase())}%`;
      for (const c of columns) conditions.push(`lower(${c}) LIKE {${name}:String}`);
    } else {
      params[name] = needle;
      for (const c of columns) conditions.push(`positionCaseInsensitiveUTF8(${c}, {${name}:String}) > 0`);
    }
  });
  return { where: [conditions.length === 1 ? conditions[0]! : `(${conditions.join(' OR ')})`], params };
}

/** A needle in one column (a message, a file name). */
export const contains = (column: string, needle: string): SqlFilter =>
  containsAny([column], [needle], column);

/** How a needle appears inside JSON text (quotes, backslashes and controls escaped). */
export function jsonEscaped(needle: string): string {
  return JSON.stringify(needle).slice(1, -1);
}
