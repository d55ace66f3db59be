import type { LogFilter } from '../logs/log-rows';
import { escapeLike } from '../logs/message-match';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to detect non-ASCII
const ASCII = /^[\x00-\x7F]*$/;

/**
 * Case-insensitive literal substring in any of `columns` (constant SQL expressions). ASCII needles
 * use `lower(col) LIKE` with the wildcards escaped; others `positionCaseInsensitiveUTF8`, which folds
 * Unicode. Every needle is a bound value named after `param`, so %, _, *, quotes are plain text.
 */
export function containsAny(
  columns: readonly string[],
  needles: readonly string[],
  param: string,
): LogFilter {
  const unique = [...new Set(needles)];
  const params: Record<string, string> = {};
  const conditions: string[] = [];
  unique.forEach((needle, i) => {
    const name = `${param}_${i}`;
    if (ASCII.test(needle)) {
      params[name] = `%${escapeLike(needle.toLowerCase())}%`;
      for (const c of columns) conditions.push(`lower(${c}) LIKE {${name}:String}`);
    } else {
      params[name] = needle;
      for (const c of columns) conditions.push(`positionCaseInsensitiveUTF8(${c}, {${name}:String}) > 0`);
    }
  });
  return { where: [`(${conditions.join(' OR ')})`], params };
}

/** How a needle appears inside JSON text (quotes, backslashes and controls escaped). */
export function jsonEscaped(needle: string): string {
  return JSON.stringify(needle).slice(1, -1);
}
