// trace.get's page cut to a result budget (the tool's `pages.cut`): the earliest spans of the page
// that fit, still a tree, with the cursor of the page that starts at the first span left out.
// Whatever describes the whole trace (totals, summary, critical path, error spans) is kept whole:
// it is bounded, and it is what a client short of room needs first.

import { mostThatFit } from '@svc/tool-kit';

/** A span of the page's tree, as far as the cut needs it. */
export interface PageSpan {
  span_id: string;
  start_time: string;
  orphan: boolean;
  parent_on_other_page?: true;
  children: PageSpan[];
}

/** A trace.get answer, as far as the cut needs it. */
export interface TracePage {
  spans: PageSpan[];
  has_more: boolean;
  truncated: boolean;
  next_cursor?: string;
  omitted?: Record<string, number>;
}

interface Placed {
  span: PageSpan;
  parent: PageSpan | undefined;
}

/** Every span of the page with its parent in the page's tree (undefined at the top). */
function placed(top: readonly PageSpan[]): Placed[] {
  const out: Placed[] = [];
  const stack: Placed[] = top.map((span) => ({ span, parent: undefined }));
  for (let next = stack.pop(); next; next = stack.pop()) {
    out.push(next);
    for (const child of next.span.children) stack.push({ span: child, parent: next.span });
  }
  return out;
}

// The page's own order, as its spans were read: start time (ISO text of fixed width), then span id.
const pageOrder = (a: Placed, b: Placed) =>
  a.span.start_time < b.span.start_time
    ? -1
    : a.span.start_time > b.span.start_time
      ? 1
      : a.span.span_id < b.span.span_id
        ? -1
        : a.span.span_id > b.span.span_id
          ? 1
          : 0;

/** Spans in the answer's page. */
export function tracePageLength(answer: TracePage): number {
  return placed(answer.spans).length;
}

/**
 * The tree of the first `kept` spans in page order. A kept span whose parent was left out (it
 * started earlier than its parent: clocks disagree) goes to the top, marked as having its parent
 * on another page: the next page holds it.
 */
function treeOf(ordered: readonly Placed[], kept: number): PageSpan[] {
  const keptSpans = ordered.slice(0, kept);
  const copies = new Map(keptSpans.map(({ span }) => [span, { ...span, children: [] as PageSpan[] }]));
  const top: PageSpan[] = [];
  // In page order, which is each level's order too (children by start time, then span id).
  for (const { span, parent } of keptSpans) {
    const copy = copies.get(span)!;
    const parentCopy = parent ? copies.get(parent) : undefined;
    if (parentCopy) parentCopy.children.push(copy);
    else {
      if (parent) Object.assign(copy, { orphan: false, parent_on_other_page: true });
      top.push(copy);
    }
  }
  return top;
}

/**
 * The answer within `budget` characters: the most spans of its page, in page order, that fit (at
 * least one), `omitted.spans` counting the rest, `next_cursor` at the first left out.
 */
export function cutTracePage<A extends TracePage>(
  answer: A,
  budget: number,
  cursorAt: (kept: number) => string | undefined,
): A {
  const ordered = placed(answer.spans).sort(pageOrder);
  const total = ordered.length;
  // No span to leave out: what is over the budget describes the whole trace and stays.
  if (total === 0) return answer;
  const { next_cursor: _replaced, ...rest } = answer;
  const cutAt = (kept: number): A => {
    const next = cursorAt(kept);
    return {
      ...rest,
      spans: treeOf(ordered, kept),
      has_more: true,
      truncated: true,
      ...(next === undefined ? {} : { next_cursor: next }),
      omitted: { ...answer.omitted, spans: total - kept },
    } as unknown as A;
  };
  const fits = (kept: number) => JSON.stringify(cutAt(kept)).length <= budget;
  // One span always goes, even alone over the budget: a cursor must move on.
  return cutAt(Math.max(1, mostThatFit(total, fits)));
}
