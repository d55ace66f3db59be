import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { SPAN_DURATION_SQL } from '../stored-values';

/**
 * A span's place in its trace, start time then span id, as one string that sorts the same way:
 * the start in milliseconds (Int64, sign bit flipped, so that it sorts as unsigned) big-endian,
 * then the id. (reinterpretAsString drops trailing zero bytes: the flipped start's top byte,
 * which is never zero for a DateTime64 of 1900..2299.) The minimum of a String keeps a plain
 * string as its state; of a tuple, a generic one larger and slower.
 */
export const SPAN_ORDER_SQL =
  'concat(reverse(reinterpretAsString(bitXor(toUnixTimestamp64Milli(start_time), toInt64(-9223372036854775808)))), span_id)';

/** One trace, from fixed-size aggregates over all of its spans. */
export interface SummaryRow {
  trace_id: string;
  /** The id in hex: exact whatever bytes it holds (the next statements name the trace by it). */
  trace_hex: string;
  started_ms: string;
  /** The last span start (epoch ms): with started_ms, the times to read the trace's spans in. */
  last_ms: string;
  duration_ms: number;
  span_count: string;
  error: number;
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
   * so it is not computed here; a trace is kept when its root may have this operation: the root
   * lies between the trace's earliest span and its earliest span without a parent, so a span of
   * that operation must start no later than the latter, and be the latter when it is also the
   * former (then it is the root).
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
 * Every aggregate keeps a fixed-size state per trace (min, max, count), so the query's memory
 * grows with the number of traces, never with the size of one: collecting a trace's spans into
 * arrays (to find its root by parent ids) costs what its largest trace costs, and comparing each
 * span with every span id of its trace grows with its square (a 10,000-span trace needed more
 * than 2 GB).
 */
export async function summaryRows(
  ctx: CoreToolContext,
  query: SummaryQuery,
  after: SummaryCursor | undefined,
  count: number,
  offset = 0,
): Promise<SummaryRow[]> {
  const having = [...query.having];
  if (query.operation !== undefined) {
    // In HAVING only: the engine computes each aggregate once, and none of them is answered.
    const named = `minIf(${SPAN_ORDER_SQL}, operation = {operation:String})`;
    const parentless = `minIf(${SPAN_ORDER_SQL}, parent_span_id = '')`;
    having.push(
      'countIf(operation = {operation:String}) > 0',
      `(countIf(parent_span_id = '') = 0
        OR (${named} <= ${parentless} AND (min(${SPAN_ORDER_SQL}) < ${parentless} OR ${named} = ${parentless})))`,
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
            max(toUnixTimestamp64Milli(start_time)) AS last_ms,
            max(toUnixTimestamp64Milli(start_time) + ${SPAN_DURATION_SQL}) - started_ms AS duration_ms,
            count() AS span_count,
            countIf(status = 'error') > 0 AS error
     FROM spans ${query.prewhere.length > 0 ? `PREWHERE ${query.prewhere.join(' AND ')}` : ''}
     WHERE ${whereOf(query.filter)}
     GROUP BY trace_id
     ${having.length > 0 ? `HAVING ${having.join(' AND ')}` : ''}
     ORDER BY started_ms DESC, trace_id ASC
     LIMIT {count:UInt32} OFFSET {offset:UInt32}`,
    paramsOf(query.filter, ctx.projectId, {
      ...query.params,
      count,
      offset,
      ...(query.operation !== undefined ? { operation: query.operation } : {}),
      ...(after ? { after_ms: after.started_ms, after_hex: after.trace_hex } : {}),
    }),
    { signal: ctx.signal },
  );
  return rows;
}
