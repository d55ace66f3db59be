import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { SPAN_DURATION_SQL } from '../stored-values';

/** A span as the summaries name it: (span_id, parent_span_id, operation, service). */
export type SpanRef = [string, string, string, string];

/** One trace, from fixed-size aggregates over all of its spans. */
export interface SummaryRow {
  trace_id: string;
  /** The id in hex: exact whatever bytes it holds (the next statements name the trace by it). */
  trace_hex: string;
  started_ms: string;
  duration_ms: number;
  span_count: string;
  error: number;
  /** The earliest span (by start, then span id). When it names no parent, it is the root. */
  first: SpanRef;
}

/** What picks and orders the traces (trace-search.ts builds it from the input). */
export interface SummaryQuery {
  /** PREWHERE conditions on trace_key (which traces may be read at all). */
  prewhere: string[];
  /** WHERE conditions on the spans of the traces. */
  filter: SqlFilter;
  /** HAVING conditions on the aliases below (started_ms, duration_ms, error, ...). */
  having: string[];
  params: Record<string, unknown>;
  /**
   * The root's operation, when the search names one. The root needs every span id of its trace,
   * so it is not computed here; a trace is kept when its root may have this operation: it has a
   * span of it no later than its earliest span without a parent, and when that earliest span
   * starts the trace (so it is the root), it is that span's operation.
   */
  operation?: string;
}

/** Where a page left off: the last trace of the previous batch (newest first, then trace id). */
export interface SummaryCursor {
  started_ms: string;
  trace_hex: string;
}

/**
 * Up to `count` traces after `after`, newest first (by first span start), then by trace id.
 *
 * Every aggregate keeps a fixed-size state per trace (min, max, count, argMin of one span), so
 * the query's memory grows with the number of traces, never with the size of one: collecting a
 * trace's spans into arrays (to find its root by parent ids) costs what its largest trace costs,
 * and comparing each span with every span id of its trace grows with its square (a 10,000-span
 * trace needed more than 2 GB).
 */
export async function summaryRows(
  ctx: CoreToolContext,
  query: SummaryQuery,
  after: SummaryCursor | undefined,
  count: number,
): Promise<SummaryRow[]> {
  const KEY = '(start_time, span_id)';
  const having = [...query.having];
  const named =
    query.operation === undefined ? [] : ['named', 'first_named', 'parentless', 'first_parentless'];
  if (query.operation !== undefined) {
    having.push(
      'named',
      '(NOT parentless OR first_named <= first_parentless)',
      "(first.2 != '' OR first.3 = {operation:String})",
    );
  }
  // Newest first, then by trace id: the next traces started earlier, or at once with a later id.
  if (after) {
    having.push(
      '(started_ms < {after_ms:Int64} OR (started_ms = {after_ms:Int64} AND trace_id > unhex({after_hex:String})))',
    );
  }
  const rows = await ctx.ch.query<SummaryRow>(
    `SELECT trace_id, hex(trace_id) AS trace_hex,
            min(toUnixTimestamp64Milli(start_time)) AS started_ms,
            max(toUnixTimestamp64Milli(start_time) + ${SPAN_DURATION_SQL}) - started_ms AS duration_ms,
            count() AS span_count,
            countIf(status = 'error') > 0 AS error,
            argMin((span_id, parent_span_id, operation, service), ${KEY}) AS first
            ${
              named.length === 0
                ? ''
                : `, countIf(operation = {operation:String}) > 0 AS named,
            minIf(${KEY}, operation = {operation:String}) AS first_named,
            countIf(parent_span_id = '') > 0 AS parentless,
            minIf(${KEY}, parent_span_id = '') AS first_parentless`
            }
     FROM spans ${query.prewhere.length > 0 ? `PREWHERE ${query.prewhere.join(' AND ')}` : ''}
     WHERE ${whereOf(query.filter)}
     GROUP BY trace_id
     ${having.length > 0 ? `HAVING ${having.join(' AND ')}` : ''}
     ORDER BY started_ms DESC, trace_id ASC
     LIMIT {count:UInt32}`,
    paramsOf(query.filter, ctx.projectId, {
      ...query.params,
      count,
      ...(query.operation !== undefined ? { operation: query.operation } : {}),
      ...(after ? { after_ms: after.started_ms, after_hex: after.trace_hex } : {}),
    }),
    { signal: ctx.signal },
  );
  return rows;
}
