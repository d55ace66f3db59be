import type { CoreToolContext } from '../core-tool';
import type { SpanRef } from './trace-summary-rows';

/**
 * Spans of the traces one `rootsOf` statement asks for, at most (unless one trace alone has more):
 * its memory holds the (trace id, span id) of each, about 100 bytes a span.
 */
export const ROOT_SPANS_PER_QUERY = 250_000;

/** The trace id and span count of a trace whose root is wanted. */
export interface TraceSize {
  trace_id: string;
  span_count: string;
}

// Both statements name the project and a list of trace ids: the spans table's p_trace_rows
// projection (ordered by them) reads only those traces' granules.
const OF_TRACES = 'project_id = {project_id:String} AND trace_id IN {ids:Array(String)}';

/**
 * The root of each trace: its earliest span (by start, then span id) that names no parent or a
 * parent that is not in the trace. A trace missing from the answer has no such span (every span
 * names a parent inside it: a cycle), and its root is its earliest span.
 *
 * Whether a parent is in the trace is one set lookup per span; the set holds the span ids of the
 * traces asked for, so callers ask for at most about ROOT_SPANS_PER_QUERY spans at a time
 * (`bySpans`).
 */
export async function rootsOf(ctx: CoreToolContext, ids: readonly string[]): Promise<Map<string, SpanRef>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.ch.query<{ trace_id: string; root: SpanRef }>(
    `SELECT trace_id, argMin((span_id, parent_span_id, operation, service), (start_time, span_id)) AS root
     FROM spans
     WHERE ${OF_TRACES}
       AND (parent_span_id = ''
            OR (trace_id, parent_span_id) NOT IN (SELECT trace_id, span_id FROM spans WHERE ${OF_TRACES}))
     GROUP BY trace_id`,
    { project_id: ctx.projectId, ids },
    { signal: ctx.signal },
  );
  return new Map(rows.map((r) => [r.trace_id, r.root]));
}

/** The services of each trace (those with a name), sorted. */
export async function servicesOf(
  ctx: CoreToolContext,
  ids: readonly string[],
): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.ch.query<{ trace_id: string; services: string[] }>(
    `SELECT trace_id, arraySort(groupUniqArrayIf(service, service != '')) AS services
     FROM spans WHERE ${OF_TRACES}
     GROUP BY trace_id`,
    { project_id: ctx.projectId, ids },
    { signal: ctx.signal },
  );
  return new Map(rows.map((r) => [r.trace_id, r.services]));
}

/**
 * Consecutive groups of `traces`, in order, each with at most ROOT_SPANS_PER_QUERY spans (a larger
 * trace in a group of its own).
 */
export function bySpans<T extends TraceSize>(traces: readonly T[]): T[][] {
  const groups: T[][] = [];
  let spans = Number.POSITIVE_INFINITY;
  for (const t of traces) {
    const n = Number(t.span_count);
    if (spans + n > ROOT_SPANS_PER_QUERY) {
      groups.push([]);
      spans = 0;
    }
    groups.at(-1)!.push(t);
    spans += n;
  }
  return groups;
}
