import type { CoreToolContext } from '../core-tool';
import { paramsOf, whereOf } from '../sql/filter';
import { inParts, LIST_PARAM_BYTES, listElementBytes } from '../sql/list-param';
import { withinRanges } from '../sql/time-ranges';

/**
 * Spans of the traces one `detailsOf` statement reads at most (unless one trace alone has more):
 * its memory holds the (trace id, span id) of each, about 100 bytes a span.
 */
export const DETAIL_SPANS_PER_QUERY = 250_000;

/**
 * A trace as these statements name it: its id in hex (exact whatever bytes it holds), its size,
 * and the first and last start of its spans (epoch ms).
 */
export interface TraceRef {
  trace_hex: string;
  span_count: string;
  started_ms: string;
  last_ms: string;
}

/** What a trace's row needs beyond its summary. */
export interface TraceDetails {
  root_operation: string;
  root_service: string;
  /** The root names a parent the trace does not hold. */
  root_orphan: boolean;
  services: string[];
}

/** (operation, service, names a parent) of a span. */
type SpanRef = [string, string, number];

// The ids go in as hex and come out as hex: an id that is not UTF-8 would not survive the trip
// through JSON as text. Written once (TRACE_IDS), read by every condition below. The spans are
// found by the times the traces' spans start in (the primary key: only those granules are read),
// then by the trace_key hash of each span (PREWHERE: 8 bytes a span instead of a 32-character id,
// as the user and session filters read it), then by the id itself where the hash matched.
const TRACE_IDS = 'WITH arrayMap(h -> unhex(h), {ids:Array(String)}) AS trace_ids';

/** FROM and WHERE of the spans of `traces`, with the parameters of the statement. */
function ofTraces(ctx: CoreToolContext, traces: readonly TraceRef[]) {
  const times = withinRanges(
    'start_time',
    traces.map((t) => [Number(t.started_ms), Number(t.last_ms)] as const),
  );
  return {
    sql: `FROM spans
      PREWHERE trace_key IN (SELECT cityHash64(arrayJoin(trace_ids)))
      WHERE ${whereOf(times)} AND trace_id IN (SELECT arrayJoin(trace_ids))`,
    params: paramsOf(times, ctx.projectId, { ids: traces.map((t) => t.trace_hex) }),
  };
}

/**
 * Root and services of each trace, by hex id; a trace no longer stored is missing. The root is
 * the earliest span (by start, then span id) that names no parent or a parent that is not in the
 * trace; when there is none (every span names a parent inside the trace: a cycle), the earliest
 * span, not an orphan. When the earliest span names no parent, it is the root: only the traces
 * whose earliest span names one are read a second time, to look their parents up (`rootsOf`).
 */
export async function detailsOf(
  ctx: CoreToolContext,
  traces: readonly TraceRef[],
): Promise<Map<string, TraceDetails>> {
  if (traces.length === 0) return new Map();
  const of = ofTraces(ctx, traces);
  const rows = await ctx.ch.query<{ trace_hex: string; first: SpanRef; services: string[] }>(
    `${TRACE_IDS}
     SELECT hex(trace_id) AS trace_hex,
            argMin((operation, service, parent_span_id != ''), (start_time, span_id)) AS first,
            arraySort(groupUniqArrayIf(service, service != '')) AS services
     ${of.sql}
     GROUP BY trace_id`,
    of.params,
    { signal: ctx.signal },
  );
  const firstNamesParent = new Set(rows.filter((r) => r.first[2]).map((r) => r.trace_hex));
  const roots = await rootsOf(
    ctx,
    traces.filter((t) => firstNamesParent.has(t.trace_hex)),
  );
  return new Map(
    rows.map((r) => {
      // Without a root candidate (a cycle), the earliest span, which names a parent in the trace.
      const [operation, service, orphan] = roots.get(r.trace_hex) ?? [r.first[0], r.first[1], 0];
      const details: TraceDetails = {
        root_operation: operation,
        root_service: service,
        root_orphan: Boolean(orphan),
        services: r.services,
      };
      return [r.trace_hex, details];
    }),
  );
}

/**
 * The root candidate of each trace that has one: its earliest span naming no parent or a parent
 * the trace does not hold (then it is an orphan). Whether a parent is in the trace is one set
 * lookup per span; the set holds the span ids of the traces asked for (one part of
 * `detailParts` at most).
 */
async function rootsOf(ctx: CoreToolContext, traces: readonly TraceRef[]): Promise<Map<string, SpanRef>> {
  if (traces.length === 0) return new Map();
  const of = ofTraces(ctx, traces);
  const rows = await ctx.ch.query<{ trace_hex: string; root: SpanRef }>(
    `${TRACE_IDS}
     SELECT hex(trace_id) AS trace_hex,
            argMin((operation, service, parent_span_id != ''), (start_time, span_id)) AS root
     ${of.sql}
       AND (parent_span_id = '' OR (trace_id, parent_span_id) NOT IN (SELECT trace_id, span_id ${of.sql}))
     GROUP BY trace_id`,
    of.params,
    { signal: ctx.signal },
  );
  return new Map(rows.map((r) => [r.trace_hex, r.root]));
}

/**
 * Consecutive parts of `traces`, in order, each of at most DETAIL_SPANS_PER_QUERY spans (a larger
 * trace in a part of its own) and of ids that fit a statement.
 */
export function detailParts<T extends TraceRef>(traces: readonly T[]): T[][] {
  return inParts(traces, [
    { of: (t) => Number(t.span_count), max: DETAIL_SPANS_PER_QUERY },
    { of: (t) => listElementBytes(t.trace_hex), max: LIST_PARAM_BYTES },
  ]);
}
