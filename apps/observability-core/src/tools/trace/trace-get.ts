import { FIELD_LIMITS, sanitizeAttributes, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { TRACE_GET_MAX_SPANS, type TraceSpanNode, traceGet } from '@svc/tools-trace';
import { isoFromMs } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { SAMPLE_RATE_SQL, SPAN_DURATION_SQL } from '../stored-values';
import { nestSpans } from './span-tree';
import { toMicrosecond } from './trace-search';

interface StoredSpan<T> {
  span_id: string;
  parent_span_id: string;
  operation: string;
  service: string;
  kind: string;
  status: string;
  start_ms: T;
  duration_ms: number;
  sample_rate: number;
  user_id: string;
  session_id: string;
  attributes: Record<string, string>;
}

type Span = StoredSpan<number>;

interface Totals {
  span_count: number;
  started_ms: number;
  ended_ms: number;
  error: boolean;
  services: string[];
}

interface TotalsRow {
  span_count: string;
  started_ms: string;
  ended_ms: number;
  error: number;
  services: string[];
}

// Both statements name project_id and trace_id exactly: the spans table's by_trace projection
// (ordered by them) answers without reading the project's other spans.
const WHERE = 'project_id = {project_id:String} AND trace_id = {trace_id:String}';

/**
 * One trace as a span tree (span-tree.ts). Up to TRACE_GET_MAX_SPANS spans, earliest first; the
 * totals (count, window, error, services) always cover every span of the trace.
 */
export const traceGetQuery = serve(traceGet, async (ctx, input) => {
  const params = { project_id: ctx.projectId, trace_id: input.trace_id };
  const rows = (
    await ctx.ch.query<StoredSpan<string>>(
      `SELECT span_id, parent_span_id, operation, service, kind, status,
              toUnixTimestamp64Milli(start_time) AS start_ms, ${SPAN_DURATION_SQL} AS duration_ms,
              ${SAMPLE_RATE_SQL} AS sample_rate,
              user_id, session_id, attributes
       FROM spans WHERE ${WHERE}
       ORDER BY start_time, span_id
       LIMIT {fetch:UInt32}`,
      { ...params, fetch: TRACE_GET_MAX_SPANS + 1 },
      { signal: ctx.signal },
    )
  ).map((r): Span => ({ ...r, start_ms: Number(r.start_ms) }));
  if (rows.length === 0) {
    return {
      trace_id: input.trace_id,
      found: false,
      started_at: null,
      duration_ms: 0,
      span_count: 0,
      error: false,
      services: [],
      truncated: false,
      spans: [],
    };
  }
  const truncated = rows.length > TRACE_GET_MAX_SPANS;
  const kept = rows.slice(0, TRACE_GET_MAX_SPANS);
  const totals: Totals = truncated ? await totalsInStorage(ctx, params) : totalsOf(kept);
  const spans = nestSpans<Span, TraceSpanNode>(kept, (s, orphan, selfMs) => ({
    span_id: sanitizeText(s.span_id, FIELD_LIMITS.id),
    parent_span_id: sanitizeOptional(s.parent_span_id),
    operation: sanitizeText(s.operation, FIELD_LIMITS.id),
    service: sanitizeOptional(s.service),
    kind: sanitizeText(s.kind, FIELD_LIMITS.id),
    status: s.status,
    start_time: isoFromMs(s.start_ms),
    offset_ms: s.start_ms - totals.started_ms,
    duration_ms: s.duration_ms,
    self_ms: toMicrosecond(selfMs),
    orphan,
    sample_rate: s.sample_rate,
    user_id: sanitizeOptional(s.user_id),
    session_id: sanitizeOptional(s.session_id),
    attributes: sanitizeAttributes(s.attributes),
  }));
  return {
    trace_id: input.trace_id,
    found: true,
    started_at: isoFromMs(totals.started_ms),
    duration_ms: toMicrosecond(totals.ended_ms - totals.started_ms),
    span_count: totals.span_count,
    error: totals.error,
    services: totals.services.map((s) => sanitizeText(s, FIELD_LIMITS.id)),
    truncated,
    spans,
  };
});

function totalsOf(rows: readonly Span[]): Totals {
  const services = new Set<string>();
  let ended = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    if (r.service !== '') services.add(r.service);
    ended = Math.max(ended, r.start_ms + r.duration_ms);
  }
  return {
    span_count: rows.length,
    started_ms: rows[0]!.start_ms,
    ended_ms: ended,
    error: rows.some((r) => r.status === 'error'),
    services: [...services].sort(),
  };
}

async function totalsInStorage(ctx: CoreToolContext, params: Record<string, string>): Promise<Totals> {
  const [row] = await ctx.ch.query<TotalsRow>(
    `SELECT count() AS span_count,
            min(toUnixTimestamp64Milli(start_time)) AS started_ms,
            max(toUnixTimestamp64Milli(start_time) + ${SPAN_DURATION_SQL}) AS ended_ms,
            countIf(status = 'error') > 0 AS error,
            arraySort(groupUniqArrayIf(service, service != '')) AS services
     FROM spans WHERE ${WHERE}`,
    params,
    { signal: ctx.signal },
  );
  return {
    span_count: Number(row!.span_count),
    started_ms: Number(row!.started_ms),
    ended_ms: row!.ended_ms,
    error: Boolean(row!.error),
    services: row!.services,
  };
}
