import { UserInputError } from '@svc/errors';
import { FIELD_LIMITS, fetchFor, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { type TraceSummary, traceSearch } from '@svc/tools-trace';
import { isoFromMs } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { combine, equals, type SqlFilter, whereOf } from '../sql/filter';
import { detailParts, detailsOf, type TraceDetails } from './trace-details';
import { type SummaryCursor, type SummaryQuery, type SummaryRow, summaryRows } from './trace-summary-rows';

/** A batch of a search by operation after the first: this many times larger, up to MAX_BATCH. */
const BATCH_GROWTH = 4;
/** Traces one summary statement answers at most (fixed-size rows, about 200 bytes each). */
const MAX_BATCH = 20_000;

/**
 * One row per trace, from all of its spans (a user or session filter picks the traces, not the
 * spans). Root: the earliest span (then by span id) whose parent is empty or not in the trace; in a
 * trace where every span names a parent inside it (a cycle), the earliest span. Duration: the last
 * span end minus the first span start. Newest first, then trace id.
 *
 * In two steps, so that a search costs what its page costs whatever the size of one trace: the
 * page's traces from fixed-size aggregates per trace (trace-summary-rows.ts), then the root and
 * services of those traces only (trace-details.ts).
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
  const having: string[] = [];
  if (fromMs !== undefined) having.push('started_ms >= {from_ms:Int64}');
  if (toMs !== undefined) having.push('started_ms < {to_ms:Int64}');
  if (input.status === 'error') having.push('error');
  if (input.status === 'ok') having.push('NOT error');
  if (input.min_duration_ms !== undefined) having.push('duration_ms >= {min_duration_ms:Float64}');
  if (input.max_duration_ms !== undefined) having.push('duration_ms <= {max_duration_ms:Float64}');
  const query: SummaryQuery = {
    prewhere,
    filter: combine(...picked),
    having,
    params: {
      ...(input.min_duration_ms !== undefined ? { min_duration_ms: input.min_duration_ms } : {}),
      ...(input.max_duration_ms !== undefined ? { max_duration_ms: input.max_duration_ms } : {}),
      ...(fromMs !== undefined ? { from_ms: fromMs } : {}),
      ...(toMs !== undefined ? { to_ms: toMs } : {}),
    },
    ...(input.operation !== undefined ? { operation: input.operation } : {}),
  };
  const { items, hasMore } =
    query.operation === undefined
      ? await newestTraces(ctx, query, input.limit)
      : await tracesByOperation(ctx, query, query.operation, input.limit);
  return { items: items.map(toSummary), limit: input.limit, has_more: hasMore };
});

type Picked = [SummaryRow, TraceDetails];

/** Without an operation: the page's rows in one statement, then their details. */
async function newestTraces(ctx: CoreToolContext, query: SummaryQuery, limit: number) {
  const rows = await summaryRows(ctx, query, undefined, fetchFor(limit), ctx.offset);
  const items: Picked[] = [];
  for await (const picked of withDetails(ctx, rows.slice(0, limit))) items.push(picked);
  return { items, hasMore: rows.length > limit };
}

/**
 * With an operation, a trace is kept when its root has it. The summaries only rule out the traces
 * whose root cannot have it, so the rows are read in batches, each after the last and larger, up
 * to MAX_BATCH, and their details as the search reaches them, until one more than the page.
 */
async function tracesByOperation(
  ctx: CoreToolContext,
  query: SummaryQuery,
  operation: string,
  limit: number,
) {
  const items: Picked[] = [];
  // A cursor's offset counts kept traces: the ones before it are found again and passed over.
  let skip = ctx.offset ?? 0;
  let after: SummaryCursor | undefined;
  for (let batch = fetchFor(limit); ; batch = Math.min(batch * BATCH_GROWTH, MAX_BATCH)) {
    const rows = await summaryRows(ctx, query, after, batch);
    for await (const picked of withDetails(ctx, rows)) {
      if (picked[1].root_operation !== operation) continue;
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      if (items.length === limit) return { items, hasMore: true };
      items.push(picked);
    }
    if (rows.length < batch) return { items, hasMore: false };
    after = rows.at(-1);
  }
}

/**
 * The rows in order, each with its details, read a part at a time as the rows reach it (memory
 * stays bounded, and nothing is read past the last row the caller takes). A trace gone since its
 * summary was read is left out.
 */
async function* withDetails(ctx: CoreToolContext, rows: readonly SummaryRow[]): AsyncGenerator<Picked> {
  for (const part of detailParts(rows)) {
    const details = await detailsOf(ctx, part);
    for (const row of part) {
      const found = details.get(row.trace_hex);
      if (found) yield [row, found];
    }
  }
}

/**
 * Span ends are epoch ms plus a fractional duration: at that magnitude a double keeps ~0.2 us, so
 * a trace's duration is reported to the microsecond (1962.1, not 1962.10009765625).
 */
export const toMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

function toSummary([row, details]: Picked): TraceSummary {
  return {
    trace_id: row.trace_id,
    started_at: isoFromMs(row.started_ms),
    duration_ms: toMicrosecond(row.duration_ms),
    span_count: Number(row.span_count),
    error: Boolean(row.error),
    root_operation: sanitizeText(details.root_operation, FIELD_LIMITS.id),
    root_service: sanitizeOptional(details.root_service),
    root_orphan: details.root_orphan,
    services: details.services.map((s) => sanitizeText(s, FIELD_LIMITS.id)),
  };
}
