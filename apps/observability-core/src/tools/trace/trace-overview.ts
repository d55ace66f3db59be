import { CRITICAL_PATH_MAX_STEPS, ERROR_SPANS_MAX } from '@svc/tools-trace';
import type { CoreToolContext } from '../core-tool';
import { SPAN_DURATION_SQL } from '../stored-values';

// What trace.get says of the whole trace, whatever page its tree shows: read in SQL over every span
// of the trace (a trace of a million spans never comes to this process), each statement naming
// project_id and trace_id exactly (the spans table's by_trace projection answers it).

const WHERE = 'project_id = {project_id:String} AND trace_id = {trace_id:String}';

/** Every span of the trace, its start and duration as Float64 milliseconds. */
const SPANS = `spans_of_trace AS (
  SELECT span_id, parent_span_id, operation, service, kind, status,
         toFloat64(toUnixTimestamp64Milli(start_time)) AS start_ms, ${SPAN_DURATION_SQL} AS duration_ms
  FROM spans WHERE ${WHERE})`;

/**
 * The spans that `ofSpan` (a condition on a span id) holds with their self time: each one's duration
 * less the union of its children's intervals clipped to it (children that overlap count once), as
 * span-tree.ts's selfTime counts it. A child is any span naming it as parent, itself aside.
 */
const timed = (ofSpan: (column: string) => string) => `
  children_of AS (
    SELECT parent_span_id AS parent, groupArray((start_ms, start_ms + duration_ms)) AS intervals
    FROM spans_of_trace
    WHERE parent_span_id != '' AND parent_span_id != span_id AND ${ofSpan('parent_span_id')}
    GROUP BY parent_span_id),
  timed AS (
    SELECT s.*, greatest(0., s.duration_ms - arrayFold(
        (acc, x) -> (acc.1 + greatest(0., x.2 - greatest(x.1, acc.2)), greatest(acc.2, x.2)),
        arraySort(arrayFilter(x -> x.2 > x.1,
          arrayMap(x -> (greatest(x.1, s.start_ms), least(x.2, s.start_ms + s.duration_ms)), c.intervals))),
        (0., s.start_ms)).1) AS self_ms
    FROM spans_of_trace AS s LEFT JOIN children_of AS c ON c.parent = s.span_id
    WHERE ${ofSpan('s.span_id')})`;

type Params = { project_id: string; trace_id: string };

/** One (service, kind) of the trace; with the first start and last end of its spans. */
export interface SummaryGroup {
  service: string;
  kind: string;
  spans: number;
  errors: number;
  duration_ms: number;
  self_ms: number;
  started_ms: number;
  ended_ms: number;
}

interface GroupRow {
  service: string;
  kind: string;
  spans: string;
  errors: string;
  total_ms: number;
  total_self_ms: number;
  first_ms: number;
  last_ms: number;
}

/** Every (service, kind) group of the trace's spans (none: the trace is not stored). */
export async function summaryGroups(ctx: CoreToolContext, params: Params): Promise<SummaryGroup[]> {
  const rows = await ctx.ch.query<GroupRow>(
    `WITH ${SPANS}, ${timed(() => '1')}
     SELECT service, kind, count() AS spans, countIf(status = 'error') AS errors,
            sum(duration_ms) AS total_ms, sum(self_ms) AS total_self_ms,
            min(start_ms) AS first_ms, max(start_ms + duration_ms) AS last_ms
     FROM timed GROUP BY service, kind`,
    params,
    { signal: ctx.signal },
  );
  return rows.map((r) => ({
    service: r.service,
    kind: r.kind,
    spans: Number(r.spans),
    errors: Number(r.errors),
    duration_ms: r.total_ms,
    self_ms: r.total_self_ms,
    started_ms: r.first_ms,
    ended_ms: r.last_ms,
  }));
}

export interface PathStep {
  span_id: string;
  operation: string;
  service: string;
  duration_ms: number;
  self_ms: number;
}

/**
 * The critical path: from the root (the earliest span naming no parent or one the trace lacks;
 * else the earliest span), each step the child that ends last (ties: the earliest start, then the
 * smallest span id), never a span twice, at most CRITICAL_PATH_MAX_STEPS steps. The walk is a fold
 * over a map of each parent's last child, made once (a recursive query would group every step).
 */
export async function criticalPath(ctx: CoreToolContext, params: Params): Promise<PathStep[]> {
  return ctx.ch.query<PathStep>(
    `WITH ${SPANS},
       last_child AS (
         SELECT parent_span_id AS parent,
                arraySort(x -> (-x.2, x.3, x.1), groupArray((span_id, start_ms + duration_ms, start_ms)))[1].1 AS child
         FROM spans_of_trace WHERE parent_span_id != '' AND parent_span_id != span_id
         GROUP BY parent_span_id),
       (SELECT mapFromArrays(groupArray(parent), groupArray(child)) FROM last_child) AS next_of,
       (SELECT span_id FROM spans_of_trace
        ORDER BY (parent_span_id = '' OR parent_span_id NOT IN (SELECT span_id FROM spans_of_trace)) DESC,
                 start_ms, span_id
        LIMIT 1) AS root_id,
       (SELECT arrayFold(
          (path, step) -> if(mapContains(next_of, path[-1]) AND NOT has(path, next_of[path[-1]]),
                             arrayPushBack(path, next_of[path[-1]]), path),
          range({steps:UInt32} - 1), [root_id])) AS path,
       ${timed((column) => `${column} IN path`)}
     SELECT span_id, operation, service, duration_ms, self_ms
     FROM timed ORDER BY indexOf(path, span_id) LIMIT 1 BY span_id`,
    { ...params, steps: CRITICAL_PATH_MAX_STEPS },
    { signal: ctx.signal },
  );
}

export interface ErrorSpanRow {
  span_id: string;
  operation: string;
  service: string;
  kind: string;
  start_ms: number;
  duration_ms: number;
}

/** The earliest ERROR_SPANS_MAX spans with status error (by start, then span id). */
export async function errorSpans(ctx: CoreToolContext, params: Params): Promise<ErrorSpanRow[]> {
  return ctx.ch.query<ErrorSpanRow>(
    `WITH ${SPANS}
     SELECT span_id, operation, service, kind, start_ms, duration_ms
     FROM spans_of_trace WHERE status = 'error'
     ORDER BY start_ms, span_id LIMIT {errors:UInt32}`,
    { ...params, errors: ERROR_SPANS_MAX },
    { signal: ctx.signal },
  );
}
