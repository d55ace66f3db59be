import { toWellFormed } from '@svc/tool-kit';

/**
 * The JSON text of a parsed value, written only until it is longer than `maxChars` (the caller
 * cuts it and marks the cut): a field nested half a million levels deep costs what its first
 * `maxChars` characters cost, and never overflows the stack (each level writes a character first,
 * so recursion stops within `maxChars` levels). Strings come out well-formed; a number JSON cannot
 * write (a literal past the range of a double parses as Infinity) is written as null, as
 * JSON.stringify does.
 */
export function boundedJson(value: unknown, maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  /** True once the text is long enough: everything returns then. */
  const put = (text: string) => {
    parts.push(text);
    length += text.length;
    return length > maxChars;
  };
  const write = (v: unknown): boolean => {
    if (typeof v === 'string') return put(JSON.stringify(toWellFormed(v)));
    if (typeof v === 'number') return put(Number.isFinite(v) ? JSON.stringify(v) : 'null');
    if (v === null || typeof v !== 'object') return put(typeof v === 'boolean' ? String(v) : 'null');
    if (Array.isArray(v)) {
      if (put('[')) return true;
      for (let i = 0; i < v.length; i++) {
        if ((i > 0 && put(',')) || write(v[i])) return true;
      }
      return put(']');
    }
    if (put('{')) return true;
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if ((!first && put(',')) || put(`${JSON.stringify(toWellFormed(key))}:`)) return true;
      first = false;
      if (write((v as Record<string, unknown>)[key])) return true;
    }
    return put('}');
  };
  write(value);
  return parts.join('');
}
