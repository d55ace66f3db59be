import { invalidInputError } from '@svc/errors';
import { type AnyTool, MAX_RESULT_CHARS_RANGE, mostThatFit } from '@svc/tool-kit';
import { type CursorBinding, type CursorSeal, isListPage, type ListPositions, pageCursorAt } from './cursor';
import { ToolAnswer } from './tool-answer';

// A call's result budget: the characters of JSON a client can afford. Each tool declares its own
// (`maxResultChars`, shown in tools/list as `_meta["anthropic/maxResultSizeChars"]`); a client
// may set another per call (MCP: the request's `_meta` under the same key; REST: the
// `X-Max-Result-Chars` header). An answer over it is cut here, once, after the backend answered
// and the answer passed its schema: never by each tool. The cut is still valid JSON of the tool's
// output schema: list items are left out (never bytes), `truncated: true`, `omitted` counts what
// was left out, and `next_cursor` goes on from there: a list page's at its first item left out, any
// other answer's at each cut list's first item left out (the same call with that cursor is
// answered again, its lists from those positions: `continuedAt`).

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

/** How a cut answer's cursor is made: the call it belongs to, and where this answer started. */
export interface Paging {
  seal: CursorSeal;
  binding: CursorBinding;
  /** A list page's offset. */
  offset: number;
  /** An answer asked for with a continuation cursor: where its lists started. */
  continued?: ListPositions;
}

const size = (value: unknown) => JSON.stringify(value).length;

/** The answer within `budget` characters; the same answer when it fits. */
export function withinBudget(
  tool: AnyTool,
  answer: ToolAnswer,
  budget: number,
  paging: Paging | undefined,
): ToolAnswer {
  // UTF-8 bytes are never fewer than characters: JSON that came as bytes within it fits unread.
  if ((answer.bytes ? answer.bytes.length : answer.text.length) <= budget) return answer;
  if (answer.text.length <= budget) return answer;
  const value = answer.value;
  // A tool paging something other than items cuts its own page (trace.get: the spans of a tree).
  if (tool.pages) {
    const cursorAt = (kept: number) => pageCursor(paging, kept);
    return ToolAnswer.ofValue(tool.pages.cut(value, budget, cursorAt));
  }
  if (tool.paged && isListPage(value)) return ToolAnswer.ofValue(cutPage(value, budget, paging));
  return ToolAnswer.ofValue(cutLists(value, budget, paging));
}

/** The cursor of the page after the `kept` first entries; none past the deepest offset a cursor may carry. */
function pageCursor(paging: Paging | undefined, kept: number): string | undefined {
  return paging ? pageCursorAt(paging.seal, paging.binding, paging.offset + kept) : undefined;
}

/** The most items that fit, with a cursor at the first left out. */
function cutPage(page: Json & { items: unknown[] }, budget: number, paging: Paging | undefined): Json {
  const total = page.items.length;
  const cutAt = (kept: number): Json => {
    const { next_cursor: _dropped, ...rest } = page;
    const cursor = pageCursor(paging, kept);
    const next = cursor === undefined ? {} : { next_cursor: cursor };
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
 * a detail's channels) are shortened from their ends until it fits; `omitted` counts each by path,
 * and `next_cursor` (room kept for it) continues each cut list where it stopped.
 */
function cutLists(value: Json, budget: number, paging: Paging | undefined): Json {
  const lists = listsOf(value);
  const cursorAt = (positions: ListPositions) =>
    paging ? { next_cursor: paging.seal.sealContinuation(paging.binding, positions) } : {};
  // A cursor's length grows with its positions' digits: one with every list's whole length is never shorter.
  const room = size(cursorAt(positionsAfter(lists, {}, paging))) - 1;
  const omitted: Record<string, number> = {};
  let out = value;
  for (const list of lists.sort((a, b) => size(b.items) - size(a.items))) {
    const path = list.path.join('.');
    const attempt = (kept: number) => withList(out, list.path, list.items.slice(0, kept));
    const marked = (kept: number) => ({
      ...attempt(kept),
      truncated: true,
      omitted: { ...omitted, [path]: list.items.length - kept },
    });
    const kept = mostThatFit(list.items.length, (k) => size(marked(k)) + room <= budget);
    if (kept < list.items.length) omitted[path] = list.items.length - kept;
    out = attempt(kept);
    if (size({ ...out, truncated: true, omitted }) + room <= budget) break;
  }
  if (Object.keys(omitted).length === 0) return value;
  out = withOneItemMoved(out, lists, omitted);
  if (Object.keys(omitted).length === 0) return value;
  return { ...out, truncated: true, omitted, ...cursorAt(positionsAfter(lists, omitted, paging)) };
}

/**
 * When no list kept an item (each one's first alone is over the budget), the first cut list keeps
 * one anyway: else the cursor would point where this answer started, and following it would never
 * end.
 */
function withOneItemMoved(
  out: Json,
  lists: { path: string[]; items: unknown[] }[],
  omitted: Record<string, number>,
): Json {
  const kept = lists.some((list) => list.items.length > (omitted[list.path.join('.')] ?? 0));
  if (kept) return out;
  const first = lists.find((list) => omitted[list.path.join('.')] !== undefined);
  if (!first) return out;
  const path = first.path.join('.');
  omitted[path] = (omitted[path] as number) - 1;
  if (omitted[path] === 0) delete omitted[path];
  return withList(out, first.path, first.items.slice(0, 1));
}

/** Where each cut list goes on: its start in this answer plus the items kept of it. */
function positionsAfter(
  lists: { path: string[]; items: unknown[] }[],
  omitted: Record<string, number>,
  paging: Paging | undefined,
): ListPositions {
  const positions: ListPositions = {};
  const cutOnly = Object.keys(omitted).length > 0;
  for (const list of lists) {
    const path = list.path.join('.');
    const left = omitted[path] ?? 0;
    if (cutOnly && left === 0) continue;
    positions[path] = (paging?.continued?.[path] ?? 0) + list.items.length - left;
  }
  return positions;
}

/**
 * The answer to a call with a continuation cursor: each list the cursor names from its position,
 * every other list empty (it was whole in an earlier part), `continued` saying where each starts.
 */
export function continuedAt(value: Json, positions: ListPositions): Json {
  let out = value;
  for (const list of listsOf(value)) {
    const start = positions[list.path.join('.')];
    out = withList(out, list.path, start === undefined ? [] : list.items.slice(start));
  }
  return { ...out, continued: positions };
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
