import type { CoreToolContext } from '../core-tool';
import { inParts, LIST_PARAM_BYTES, listElementBytes, listParts } from '../sql/list-param';
import type { SpanRef } from './trace-summary-rows';

/**
 * Spans of the traces one `rootsOf` statement asks for, at most (unless one trace alone has more):
 * its memory holds the (trace id, span id) of each, about 100 bytes a span.
 */
export const ROOT_SPANS_PER_QUERY = 250_000;

/** A trace as these statements name it: its id in hex (exact whatever bytes it holds), its size. */
export interface TraceRef {
  trace_hex: string;
  span_count: string;
}

// The ids go in as hex and come out as hex: an id that is not UTF-8 would not survive the trip
// through JSON as text. `trace_id IN (subquery)` still reads through the spans table's p_trace_rows
// projection (ordered by project and trace id): only those traces' granules, not the project's.
const OF_TRACES =
  'project_id = {project_id:String} AND trace_id IN (SELECT unhex(arrayJoin({ids:Array(String)})))';

/**
 * The root of each trace (by hex id): its earliest span (by start, then span id) that names no
 * parent or a parent that is not in the trace. A trace missing from the answer has no such span
 * (every span names a parent inside it: a cycle), and its root is its earliest span.
 *
 * Whether a parent is in the trace is one set lookup per span; the set holds the span ids of the
 * traces asked for, so callers ask for a part of `rootParts` at a time.
 */
export async function rootsOf(
  ctx: CoreToolContext,
  hexIds: readonly string[],
): Promise<Map<string, SpanRef>> {
  if (hexIds.length === 0) return new Map();
  const rows = await ctx.ch.query<{ trace_hex: string; root: SpanRef }>(
    `SELECT hex(trace_id) AS trace_hex,
            argMin((span_id, parent_span_id, operation, service), (start_time, span_id)) AS root
     FROM spans
     WHERE ${OF_TRACES}
       AND (parent_span_id = ''
            OR (trace_id, parent_span_id) NOT IN (SELECT trace_id, span_id FROM spans WHERE ${OF_TRACES}))
     GROUP BY trace_id`,
    { project_id: ctx.projectId, ids: hexIds },
    { signal: ctx.signal },
  );
  return new Map(rows.map((r) => [r.trace_hex, r.root]));
}

/**
 * Consecutive parts of `traces`, in order, each of at most ROOT_SPANS_PER_QUERY spans (a larger
 * trace in a part of its own) and of ids that fit a statement (named twice in it).
 */
export function rootParts<T extends TraceRef>(traces: readonly T[]): T[][] {
  return inParts(traces, [
    { of: (t) => Number(t.span_count), max: ROOT_SPANS_PER_QUERY },
    { of: (t) => listElementBytes(t.trace_hex), max: LIST_PARAM_BYTES },
  ]);
}

/** The services of each trace (by hex id) that have a name, sorted. */
export async function servicesOf(
  ctx: CoreToolContext,
  hexIds: readonly string[],
): Promise<Map<string, string[]>> {
  const services = new Map<string, string[]>();
  for (const ids of listParts(hexIds)) {
    const rows = await ctx.ch.query<{ trace_hex: string; services: string[] }>(
      `SELECT hex(trace_id) AS trace_hex, arraySort(groupUniqArrayIf(service, service != '')) AS services
       FROM spans WHERE ${OF_TRACES}
       GROUP BY trace_id`,
      { project_id: ctx.projectId, ids },
      { signal: ctx.signal },
    );
    for (const r of rows) services.set(r.trace_hex, r.services);
  }
  return services;
}
