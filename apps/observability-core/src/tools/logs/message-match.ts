import type { LogFilter } from './log-rows';

/** LIKE treats %, _ and \ specially; escaped, they match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to detect non-ASCII
const ASCII = /^[\x00-\x7F]*$/;

/**
 * Case-insensitive literal substring of the message. An ASCII needle is matched as
 * `lower(message) LIKE '%needle%'` with the wildcards escaped: that is the expression of the
 * ngram bloom-filter index, so ClickHouse can skip granules. ClickHouse's `lower` folds ASCII
 * only, so a needle with other letters uses `positionCaseInsensitiveUTF8`, which folds Unicode.
 * Either way the needle is a bound value: %, _, *, regex characters and quotes are plain text.
 */
export function messageContains(needle: string): LogFilter {
  if (ASCII.test(needle)) {
    return {
      where: ['lower(message) LIKE {message_like:String}'],
      params: { message_like: `%${escapeLike(needle.toLowerCase())}%` },
    };
  }
  return {
    where: ['positionCaseInsensitiveUTF8(message, {message_needle:String}) > 0'],
    params: { message_needle: needle },
  };
}
