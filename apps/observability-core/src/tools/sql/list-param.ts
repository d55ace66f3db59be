// Lists of values a statement names (the trace ids of a page, the operations of a page), sent in
// parts. On embedded chDB every parameter is written into the statement's text as a literal, and
// the engine refuses a statement longer than its max_query_size (256 KiB): a page of a thousand
// long ids would not fit in one.

/** Bytes of SQL text one list parameter may take (a statement names each of its lists once). */
export const LIST_PARAM_BYTES = 96 * 1024;

/**
 * Bytes `value` takes as an element of a list literal, at most: quoted, escaped (a control
 * character becomes `\xHH`, a quote or backslash two bytes), and its separator.
 */
export function listElementBytes(value: string): number {
  let bytes = 4;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) bytes += 4;
    else if (code === 0x27 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    // A UTF-16 unit of the basic plane is 3 bytes; each half of a pair counts 3 (4 for both).
    else bytes += 3;
  }
  return bytes;
}

/** What one part may hold: `of(item)` summed over the part, at most `max`. */
export interface PartBudget<T> {
  of: (item: T) => number;
  max: number;
}

/**
 * `items` in consecutive parts, in order, each within every budget; an item over a budget on its
 * own is a part by itself.
 */
export function inParts<T>(items: readonly T[], budgets: readonly PartBudget<T>[]): T[][] {
  const parts: T[][] = [];
  let used = budgets.map(() => Number.POSITIVE_INFINITY);
  for (const item of items) {
    const cost = budgets.map((b) => b.of(item));
    if (budgets.some((b, k) => used[k]! + cost[k]! > b.max)) {
      parts.push([]);
      used = budgets.map(() => 0);
    }
    parts.at(-1)!.push(item);
    used = used.map((u, k) => u + cost[k]!);
  }
  return parts;
}

/** `values` in parts of at most LIST_PARAM_BYTES bytes of SQL text each. */
export function listParts(values: readonly string[]): string[][] {
  return inParts(values, [{ of: listElementBytes, max: LIST_PARAM_BYTES }]);
}
