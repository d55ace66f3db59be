import { TRACE_GET_MAX_DEPTH, type TraceSpanNode } from '@svc/tools-trace';

/** A span as the tree builder needs it; `parent_span_id` is '' for none (as stored). */
export interface TreeSpan {
  span_id: string;
  parent_span_id: string;
  start_ms: number;
  duration_ms: number;
}

/**
 * Nests spans under their parents. Input in tree order (start time, then span id); every level keeps
 * that order. A span is at the top when it names no parent, when its parent is not among the spans
 * (an orphan), or when following parents from it never reaches the top (a cycle: the earliest span
 * of the cycle moves to the top, flagged like an orphan). A span deeper than maxDepth levels starts
 * a new top-level subtree, flagged the same way: JSON parsers (and schema validators) recurse, and
 * many stop at a few hundred levels. A parent id carried by several spans (a duplicate) adopts the
 * children through its first span. `outside` holds, by parent span id, the children that are not
 * among `spans` (on other pages of the trace): they count in their parent's self time.
 */
export function nestSpans<S extends TreeSpan, N extends TraceSpanNode>(
  spans: readonly S[],
  toNode: (span: S, orphan: boolean, selfMs: number) => Omit<N, 'children'>,
  maxDepth: number = TRACE_GET_MAX_DEPTH,
  outside: ReadonlyMap<string, readonly TreeSpan[]> = new Map(),
): N[] {
  const firstById = new Map<string, number>();
  spans.forEach((s, i) => {
    if (!firstById.has(s.span_id)) firstById.set(s.span_id, i);
  });
  const parentOf = spans.map((s, i) => {
    const p = s.parent_span_id === '' ? undefined : firstById.get(s.parent_span_id);
    return p === undefined || p === i ? -1 : p;
  });
  const top = parentOf.map((p) => p === -1);
  const children: number[][] = spans.map(() => []);
  const reached = spans.map(() => false);
  const reach = (from: number) => {
    const stack = [from];
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (reached[i]) continue;
      reached[i] = true;
      for (const c of children[i]!) stack.push(c);
    }
  };
  parentOf.forEach((p, i) => {
    if (p !== -1) children[p]!.push(i);
  });
  top.forEach((isTop, i) => {
    if (isTop) reach(i);
  });
  // Whatever is still unreached hangs on a cycle: cut it at its earliest span.
  for (let i = 0; i < spans.length; i++) {
    if (reached[i]) continue;
    const p = parentOf[i]!;
    children[p] = children[p]!.filter((c) => c !== i);
    top[i] = true;
    reach(i);
  }
  // Depth from the top; a cut-off span keeps counting in its parent's self time.
  const levels: [number, number][] = [];
  top.forEach((isTop, i) => {
    if (isTop) levels.push([i, 1]);
  });
  while (levels.length > 0) {
    const [i, depth] = levels.pop()!;
    for (const c of children[i]!) {
      if (depth + 1 > maxDepth) top[c] = true;
      levels.push([c, top[c] ? 1 : depth + 1]);
    }
  }
  const self = spans.map((s, i) =>
    selfTime(s, [
      ...children[i]!.map((c) => spans[c]!),
      ...((firstById.get(s.span_id) === i && outside.get(s.span_id)) || []),
    ]),
  );
  const nodes = spans.map(
    (s, i) => ({ ...toNode(s, top[i]! && s.parent_span_id !== '', self[i]!), children: [] }) as unknown as N,
  );
  const roots: N[] = [];
  spans.forEach((_, i) => {
    if (top[i]) roots.push(nodes[i]!);
    // Children were collected in input order, which is tree order.
    else nodes[parentOf[i]!]!.children.push(nodes[i]!);
  });
  return roots;
}

/**
 * The part of a span's own interval that none of its children covers: its duration minus the union
 * of the children's intervals clipped to the span (children that overlap count once; time a child
 * spends after its parent ended is not the parent's).
 */
export function selfTime(span: TreeSpan, children: readonly TreeSpan[]): number {
  const start = span.start_ms;
  const end = span.start_ms + span.duration_ms;
  const parts = children
    .map((c) => [Math.max(start, c.start_ms), Math.min(end, c.start_ms + c.duration_ms)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let reachedTo = start;
  for (const [a, b] of parts) {
    if (b <= reachedTo) continue;
    covered += b - Math.max(a, reachedTo);
    reachedTo = b;
  }
  return Math.max(0, span.duration_ms - covered);
}
