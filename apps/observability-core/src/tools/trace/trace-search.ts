import { FIELD_LIMITS, sanitizeOptional, sanitizeText, UserInputError } from '@svc/tool-kit';
import { type TraceSummary, traceSearch } from '@svc/tools-trace';
import { isoFromMs } from '../../storage/time';
import { serve } from '../core-tool';
import { combine, equals, paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { fetchFor, pageOf } from '../sql/page';
import { SPAN_DURATION_SQL } from '../stored-values';

interface TraceRow {
  trace_id: string;
  started_ms: string;
  duration_ms: number;
  span_count: string;
  error: number;
  root_orphan: number;
  root: [string, string, string, string, string];
  services: string[];
}

/**
 * One row per trace, from all of its spans (a user or session filter picks the traces, not the
 * spans). Root: the earliest span (then by span id) whose parent is empty or not in the trace; in a
 * trace where every span names a parent inside it (a cycle), the earliest span. Duration: the last
 * span end minus the first span start. Newest first, then trace id.
 */
export const traceSearchQuery = serve(traceSearch, async (ctx, input) => {
  const picked: SqlFilter[] = [];
  // The traces a user or session filter picks: every span of theirs, found by the trace_key hash
  // first (migration 20: a 64-bit compare per span instead of a 32-character string), then by id.
  const prewhere: string[] = [];
  for (const [column, value] of [
    ['user_id', input.user_id],
    ['session_id', input.session_id],
  ] as const) {
    const filter = equals(column, value);
    if (filter) {
      prewhere.push(`trace_key IN (SELECT cityHash64(trace_id) FROM spans WHERE ${whereOf(filter)})`);
      picked.push({
        where: [`trace_id IN (SELECT trace_id FROM spans WHERE ${whereOf(filter)})`],
        params: filter.params,
      });
    }
  }
  // A time window picks the traces with a span in it (the one that started in it has its first
  // there), then HAVING keeps those whose first span is in it: a trace that began earlier keeps its
  // true start and root, computed from all of its spans.
  const fromMs = input.from === undefined ? undefined : Date.parse(input.from);
  const toMs = input.to === undefined ? undefined : Date.parse(input.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) {
    throw new UserInputError('`from` must be before `to`.');
  }
  if (fromMs !== undefined || toMs !== undefined) {
    const bounds = [
      ...(fromMs !== undefined ? ['start_time >= fromUnixTimestamp64Milli({from_ms:Int64})'] : []),
      ...(toMs !== undefined ? ['start_time < fromUnixTimestamp64Milli({to_ms:Int64})'] : []),
    ].join(' AND ');
    prewhere.push(
      `trace_key IN (SELECT cityHash64(trace_id) FROM spans WHERE project_id = {project_id:String} AND ${bounds})`,
    );
  }
  const filter = combine(...picked);
  const having: string[] = [];
  if (fromMs !== undefined) having.push('started_ms >= {from_ms:Int64}');
  if (toMs !== undefined) having.push('started_ms < {to_ms:Int64}');
  if (input.status === 'error') having.push('error');
  if (input.status === 'ok') having.push('NOT error');
  if (input.operation !== undefined) having.push('root.4 = {operation:String}');
  if (input.min_duration_ms !== undefined) having.push('duration_ms >= {min_duration_ms:Float64}');
  if (input.max_duration_ms !== undefined) having.push('duration_ms <= {max_duration_ms:Float64}');
  const rows = await ctx.ch.query<TraceRow>(
    `SELECT trace_id,
            min(toUnixTimestamp64Milli(start_time)) AS started_ms,
            max(toUnixTimestamp64Milli(start_time) + ${SPAN_DURATION_SQL}) - started_ms AS duration_ms,
            count() AS span_count,
            countIf(status = 'error') > 0 AS error,
            groupArray(span_id) AS ids,
            arraySort(x -> (x.3, x.1),
              groupArray((span_id, parent_span_id, toUnixTimestamp64Milli(start_time), operation, service))) AS ordered,
            arrayFilter(x -> x.2 = '' OR NOT has(ids, x.2), ordered) AS roots,
            if(empty(roots), ordered[1], roots[1]) AS root,
            root.2 != '' AND NOT has(ids, root.2) AS root_orphan,
            arraySort(groupUniqArrayIf(service, service != '')) AS services
     FROM spans ${prewhere.length > 0 ? `PREWHERE ${prewhere.join(' AND ')}` : ''}
     WHERE ${whereOf(filter)}
     GROUP BY trace_id
     ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
     ORDER BY started_ms DESC, trace_id ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, {
      fetch: fetchFor(input.limit),
      ...(input.operation !== undefined ? { operation: input.operation } : {}),
      ...(input.min_duration_ms !== undefined ? { min_duration_ms: input.min_duration_ms } : {}),
      ...(input.max_duration_ms !== undefined ? { max_duration_ms: input.max_duration_ms } : {}),
      ...(fromMs !== undefined ? { from_ms: fromMs } : {}),
      ...(toMs !== undefined ? { to_ms: toMs } : {}),
    }),
    { signal: ctx.signal },
  );
  return pageOf(rows, input.limit, toSummary);
});

/**
 * Span ends are epoch ms plus a fractional duration: at that magnitude a double keeps ~0.2 us, so
 * a trace's duration is reported to the microsecond (1962.1, not 1962.10009765625).
 */
export const toMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

function toSummary(row: TraceRow): TraceSummary {
  const [, , , operation, service] = row.root;
  return {
    trace_id: row.trace_id,
    started_at: isoFromMs(row.started_ms),
    duration_ms: toMicrosecond(row.duration_ms),
    span_count: Number(row.span_count),
    error: Boolean(row.error),
    root_operation: sanitizeText(operation, FIELD_LIMITS.id),
    root_service: sanitizeOptional(service),
    root_orphan: Boolean(row.root_orphan),
    services: row.services.map((s) => sanitizeText(s, FIELD_LIMITS.id)),
  };
}
