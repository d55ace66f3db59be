import { invalidInputError } from '@svc/errors';
import { type AnyTool, isListOutput, MAX_RESULT_CHARS_RANGE } from '@svc/tool-kit';
import { type CursorBinding, type CursorSeal, isListPage } from './cursor';
import { ToolAnswer } from './tool-answer';

// A call's result budget: the characters of JSON a client can afford. Each tool declares its own
// (`maxResultChars`, shown in tools/list as `_meta["anthropic/maxResultSizeChars"]`); a client
// may set another per call (MCP: the request's `_meta` under the same key; REST: the
// `X-Max-Result-Chars` header). An answer over it is cut here, once, after the backend answered
// and the answer passed its schema: never by each tool. The cut is still valid JSON of the tool's
// output schema: list items are left out (never bytes), `truncated: true`, `omitted` counts what
// was left out, and a list's `next_cursor` starts at the first item left out.

/** The request `_meta` key (MCP) a client sets its budget with; the same key tools/list declares. */
export const RESULT_BUDGET_META_KEY = 'anthropic/maxResultSizeChars';
/** The REST header a client sets its budget with. */
export const RESULT_BUDGET_HEADER = 'x-max-result-chars';

/** A client's budget as sent (a header's text, a `_meta` value): undefined when none; a 400 when invalid. */
export function clientBudgetOf(value: unknown, tool: string, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
  const [min, max] = MAX_RESULT_CHARS_RANGE;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw invalidInputError(tool, [{ path: field, message: `must be an integer from ${min} to ${max}` }]);
  }
  return n;
}

type Json = Record<string, unknown>;

const size = (value: unknown) => JSON.stringify(value).length;

/** The answer within `budget` characters; the same answer when it fits. */
export function withinBudget(
  tool: AnyTool,
  answer: ToolAnswer,
  budget: number,
  paging: { seal: CursorSeal; binding: CursorBinding; offset: number } | undefined,
): ToolAnswer {
  // UTF-8 bytes are never fewer than characters: JSON that came as bytes within it fits unread.
  if ((answer.bytes ? answer.bytes.length : answer.text.length) <= budget) return answer;
  if (answer.text.length <= budget) return answer;
  const value = answer.value;
  if (isListOutput(tool.output) && isListPage(value))
    return ToolAnswer.ofValue(cutPage(value, budget, paging));
  return ToolAnswer.ofValue(cutLists(value, budget));
}

/** The most items that fit, with a cursor at the first left out. */
function cutPage(
  page: Json & { items: unknown[] },
  budget: number,
  paging: { seal: CursorSeal; binding: CursorBinding; offset: number } | undefined,
): Json {
  const total = page.items.length;
  const cutAt = (kept: number): Json => {
    const { next_cursor: _dropped, ...rest } = page;
    const next = paging ? { next_cursor: paging.seal.seal(paging.binding, paging.offset + kept) } : {};
    return {
      ...rest,
      items: page.items.slice(0, kept),
      has_more: true,
      ...next,
      truncated: true,
      omitted: { items: total - kept },
    };
  };
  // One item always goes, even alone over the budget: a page of none would hand back a cursor
  // to the same place, and a client following it would never get further.
  return cutAt(
    Math.max(
      Math.min(total, 1),
      mostThatFit(total, (kept) => size(cutAt(kept)) <= budget),
    ),
  );
}

/**
 * An answer that is not a list page: its longest lists (at the top level and one level down, e.g.
 * a detail's channels) are shortened from their ends until it fits; `omitted` counts each by path.
 */
function cutLists(value: Json, budget: number): Json {
  const lists = listsOf(value);
  const omitted: Record<string, number> = {};
  let out = value;
  for (const list of lists.sort((a, b) => size(b.items) - size(a.items))) {
    const attempt = (kept: number) => withList(out, list.path, list.items.slice(0, kept));
    const marked = (kept: number) => ({
      ...attempt(kept),
      truncated: true,
      omitted: { ...omitted, [list.path.join('.')]: list.items.length - kept },
    });
    const kept = mostThatFit(list.items.length, (k) => size(marked(k)) <= budget);
    if (kept < list.items.length) omitted[list.path.join('.')] = list.items.length - kept;
    out = attempt(kept);
    if (size({ ...out, truncated: true, omitted }) <= budget) break;
  }
  return Object.keys(omitted).length === 0 ? value : { ...out, truncated: true, omitted };
}

function listsOf(value: Json): { path: string[]; items: unknown[] }[] {
  const found: { path: string[]; items: unknown[] }[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) found.push({ path: [key], items: v });
    else if (v !== null && typeof v === 'object') {
      for (const [inner, w] of Object.entries(v as Json)) {
        if (Array.isArray(w)) found.push({ path: [key, inner], items: w });
      }
    }
  }
  return found;
}

function withList(value: Json, path: string[], items: unknown[]): Json {
  const [head, inner] = path as [string, string | undefined];
  if (inner === undefined) return { ...value, [head]: items };
  return { ...value, [head]: { ...(value[head] as Json), [inner]: items } };
}

/** The largest n in 0..total with fits(n) (fits is monotone: fewer items never grow the answer). */
function mostThatFit(total: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = total;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}
