import { FIELD_LIMITS, sanitizeAttributes, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { SUMMARY_MAX_ROWS, type TraceSpanNode, traceGet } from '@svc/tools-trace';
import { isoFromMs } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { nestSpans, type TreeSpan } from './span-tree';
import { criticalPath, errorSpans, type SummaryGroup, summaryGroups } from './trace-overview';
import { byText, overviewOfRows } from './trace-overview-rows';
import { childrenElsewhere, type PageRow, pageRows, parentsInTrace } from './trace-page';
import { toMicrosecond } from './trace-search';

const id = (text: string) => sanitizeText(text, FIELD_LIMITS.id);

/** The whole trace's totals, from its (service, kind) groups (at least one). */
function totalsOf(groups: readonly SummaryGroup[]) {
  const services = new Set<string>();
  let started = Number.POSITIVE_INFINITY;
  let ended = Number.NEGATIVE_INFINITY;
  for (const g of groups) {
    if (g.service !== '') services.add(g.service);
    started = Math.min(started, g.started_ms);
    ended = Math.max(ended, g.ended_ms);
  }
  return {
    span_count: groups.reduce((n, g) => n + g.spans, 0),
    error_span_count: groups.reduce((n, g) => n + g.errors, 0),
    started_ms: started,
    ended_ms: ended,
    services: [...services].sort(),
  };
}

/** The summary's rows: the most self time first, then by service and kind. */
function summaryOf(groups: readonly SummaryGroup[]) {
  return groups
    .map((g) => ({
      service: sanitizeOptional(g.service),
      kind: id(g.kind),
      spans: g.spans,
      errors: g.errors,
      duration_ms: toMicrosecond(g.duration_ms),
      self_ms: toMicrosecond(g.self_ms),
    }))
    .sort(
      (a, b) => b.self_ms - a.self_ms || byText(a.service ?? '', b.service ?? '') || byText(a.kind, b.kind),
    )
    .slice(0, SUMMARY_MAX_ROWS);
}

type Params = { project_id: string; trace_id: string };

/**
 * The whole trace's fields for a page that is not the whole trace, read in storage over every
 * span (trace-overview.ts), with what the page's tree needs from the other pages: its spans'
 * children there (self time) and which parents named are in the trace.
 */
async function overviewInStorage(ctx: CoreToolContext, params: Params, offset: number, page: PageRow[]) {
  const [groups, path, errors, elsewhere, parents] = await Promise.all([
    summaryGroups(ctx, params),
    criticalPath(ctx, params),
    errorSpans(ctx, params),
    page.length > 0 ? childrenElsewhere(ctx, params, offset, page) : new Map<string, TreeSpan[]>(),
    page.length > 0 ? parentsInTrace(ctx, params, offset, page) : new Set<string>(),
  ]);
  return { groups, path, errors, elsewhere, parents };
}

/**
 * One trace: totals, summary, critical path and error spans over every span, and one page of its
 * spans by start time as a tree (span-tree.ts). A trace that one page holds whole is read once and
 * summed up from its rows (trace-overview-rows.ts); a longer one in storage (trace-overview.ts). A
 * span whose parent is on another page is at the top of its page, marked so (not an orphan: the
 * parent is in the trace).
 */
export const traceGetQuery = serve(traceGet, async (ctx, input) => {
  const params = { project_id: ctx.projectId, trace_id: input.trace_id };
  const offset = ctx.offset ?? 0;
  const rows = await pageRows(ctx, params, offset, input.limit + 1);
  const has_more = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  const paged = offset > 0 || has_more;
  if (!paged && page.length === 0) return notFound(input.trace_id);
  const { groups, path, errors, elsewhere, parents } = paged
    ? await overviewInStorage(ctx, params, offset, page)
    : { ...overviewOfRows(page), elsewhere: new Map<string, TreeSpan[]>(), parents: new Set<string>() };
  if (groups.length === 0) return notFound(input.trace_id);
  const totals = totalsOf(groups);
  const onPage = new Set(page.map((s) => s.span_id));
  const toNode = (s: PageRow, orphan: boolean, selfMs: number): Omit<TraceSpanNode, 'children'> => {
    const otherPage = orphan && parents.has(s.parent_span_id) && !onPage.has(s.parent_span_id);
    return {
      span_id: id(s.span_id),
      parent_span_id: sanitizeOptional(s.parent_span_id),
      operation: id(s.operation),
      service: sanitizeOptional(s.service),
      kind: id(s.kind),
      status: s.status,
      start_time: isoFromMs(s.start_ms),
      offset_ms: s.start_ms - totals.started_ms,
      duration_ms: s.duration_ms,
      self_ms: toMicrosecond(selfMs),
      orphan: orphan && !otherPage,
      ...(otherPage ? { parent_on_other_page: true as const } : {}),
      sample_rate: s.sample_rate,
      user_id: sanitizeOptional(s.user_id),
      session_id: sanitizeOptional(s.session_id),
      attributes: sanitizeAttributes(s.attributes),
    };
  };
  return {
    trace_id: input.trace_id,
    found: true,
    started_at: isoFromMs(totals.started_ms),
    duration_ms: toMicrosecond(totals.ended_ms - totals.started_ms),
    span_count: totals.span_count,
    error: totals.error_span_count > 0,
    services: totals.services.map(id),
    truncated: paged,
    spans: nestSpans<PageRow, TraceSpanNode>(page, toNode, undefined, elsewhere),
    has_more,
    summary: summaryOf(groups),
    critical_path: path.map((p) => ({
      span_id: id(p.span_id),
      operation: id(p.operation),
      service: sanitizeOptional(p.service),
      duration_ms: toMicrosecond(p.duration_ms),
      self_ms: toMicrosecond(p.self_ms),
    })),
    error_spans: errors.map((e) => ({
      span_id: id(e.span_id),
      operation: id(e.operation),
      service: sanitizeOptional(e.service),
      kind: id(e.kind),
      offset_ms: toMicrosecond(e.start_ms - totals.started_ms),
      duration_ms: toMicrosecond(e.duration_ms),
    })),
    error_span_count: totals.error_span_count,
  };
});

function notFound(traceId: string) {
  return {
    trace_id: traceId,
    found: false,
    started_at: null,
    duration_ms: 0,
    span_count: 0,
    error: false,
    services: [],
    truncated: false,
    spans: [],
    has_more: false,
    summary: [],
    critical_path: [],
    error_spans: [],
    error_span_count: 0,
  };
}
