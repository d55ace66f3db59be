import { CRITICAL_PATH_MAX_STEPS, ERROR_SPANS_MAX } from '@svc/tools-trace';
import { selfTime } from './span-tree';
import type { ErrorSpanRow, PathStep, SummaryGroup } from './trace-overview';
import type { PageRow } from './trace-page';

// trace.get's whole-trace fields when one page holds the whole trace (the common case: a trace of
// a few dozen spans): computed from the rows already read, by the rules trace-overview.ts states
// in SQL for a trace read in pages, so a small trace costs one statement, as before it paged.

/** Text in code unit order (span ids are hex: their byte order, as ClickHouse sorts them). */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byStart = (a: PageRow, b: PageRow) => a.start_ms - b.start_ms || byText(a.span_id, b.span_id);
const endOf = (s: PageRow) => s.start_ms + s.duration_ms;

/** Each span's children: every span naming it as parent, itself aside. */
function childrenOf(spans: readonly PageRow[]): Map<string, PageRow[]> {
  const children = new Map<string, PageRow[]>();
  for (const s of spans) {
    if (s.parent_span_id === '' || s.parent_span_id === s.span_id) continue;
    const siblings = children.get(s.parent_span_id);
    if (siblings) siblings.push(s);
    else children.set(s.parent_span_id, [s]);
  }
  return children;
}

function groupsOf(spans: readonly PageRow[], selfOf: (s: PageRow) => number): SummaryGroup[] {
  const groups = new Map<string, SummaryGroup>();
  for (const s of spans) {
    const key = JSON.stringify([s.service, s.kind]);
    const g = groups.get(key) ?? {
      service: s.service,
      kind: s.kind,
      spans: 0,
      errors: 0,
      duration_ms: 0,
      self_ms: 0,
      started_ms: s.start_ms,
      ended_ms: endOf(s),
    };
    g.spans += 1;
    g.errors += s.status === 'error' ? 1 : 0;
    g.duration_ms += s.duration_ms;
    g.self_ms += selfOf(s);
    g.started_ms = Math.min(g.started_ms, s.start_ms);
    g.ended_ms = Math.max(g.ended_ms, endOf(s));
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * From the root (the earliest span naming no parent or one the trace lacks; else the earliest),
 * each step the child that ends last (ties: earliest start, then smallest span id), never a span
 * twice, at most CRITICAL_PATH_MAX_STEPS.
 */
function pathOf(ordered: readonly PageRow[], children: ReadonlyMap<string, PageRow[]>): PageRow[] {
  const ids = new Set(ordered.map((s) => s.span_id));
  const root = ordered.find((s) => s.parent_span_id === '' || !ids.has(s.parent_span_id)) ?? ordered[0]!;
  const path = [root];
  const onPath = new Set([root.span_id]);
  while (path.length < CRITICAL_PATH_MAX_STEPS) {
    const next = (children.get(path.at(-1)!.span_id) ?? []).reduce<PageRow | undefined>(
      (best, c) =>
        best === undefined || endOf(c) > endOf(best) || (endOf(c) === endOf(best) && byStart(c, best) < 0)
          ? c
          : best,
      undefined,
    );
    if (!next || onPath.has(next.span_id)) break;
    path.push(next);
    onPath.add(next.span_id);
  }
  return path;
}

/** Summary groups, critical path and error spans of a trace whose every span is in `spans`. */
export function overviewOfRows(spans: readonly PageRow[]) {
  const children = childrenOf(spans);
  const selfOf = (s: PageRow) => selfTime(s, children.get(s.span_id) ?? []);
  const ordered = [...spans].sort(byStart);
  const path: PathStep[] = pathOf(ordered, children).map((s) => ({
    span_id: s.span_id,
    operation: s.operation,
    service: s.service,
    duration_ms: s.duration_ms,
    self_ms: selfOf(s),
  }));
  const errors: ErrorSpanRow[] = ordered
    .filter((s) => s.status === 'error')
    .slice(0, ERROR_SPANS_MAX)
    .map((s) => ({
      span_id: s.span_id,
      operation: s.operation,
      service: s.service,
      kind: s.kind,
      start_ms: s.start_ms,
      duration_ms: s.duration_ms,
    }));
  return { groups: groupsOf(spans, selfOf), path, errors };
}
