import { FIELD_LIMITS, sanitizeOptional, sanitizeText, UserInputError } from '@svc/tool-kit';
import { type TraceSummary, traceSearch } from '@svc/tools-trace';
import { isoFromMs } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { combine, equals, type SqlFilter, whereOf } from '../sql/filter';
import { fetchFor, pageOf } from '../sql/page';
import { rootParts, rootsOf, servicesOf } from './trace-roots';
import {
  type SpanRef,
  type SummaryCursor,
  type SummaryQuery,
  type SummaryRow,
  summaryRows,
} from './trace-summary-rows';

/** A batch of a search by operation after the first: this many times larger, up to MAX_BATCH. */
const BATCH_GROWTH = 4;
/** Traces one summary statement answers at most (fixed-size rows, about 200 bytes each). */
const MAX_BATCH = 20_000;

interface Root {
  span: SpanRef;
  /** It names a parent the trace does not hold. */
  orphan: boolean;
}

interface Picked {
  row: SummaryRow;
  root: Root;
}

/**
 * One row per trace, from all of its spans (a user or session filter picks the traces, not the
 * spans). Root: the earliest span (then by span id) whose parent is empty or not in the trace; in a
 * trace where every span names a parent inside it (a cycle), the earliest span. Duration: the last
 * span end minus the first span start. Newest first, then trace id.
 *
 * In three steps, so that a search costs what its page costs whatever the size of one trace: the
 * page's traces from fixed-size aggregates per trace (trace-summary-rows.ts), then the roots of
 * those whose earliest span names a parent, then the services of the page (trace-roots.ts).
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
  const traces = await pickTraces(ctx, query, fetchFor(input.limit));
  const services = await servicesOf(
    ctx,
    traces.slice(0, input.limit).map((t) => t.row.trace_hex),
  );
  return pageOf(traces, input.limit, (t) => toSummary(t, services.get(t.row.trace_hex) ?? []));
});

/**
 * The first `wanted` traces the search keeps, newest first, each with its root. Without an
 * operation every summary row is kept: one batch. With one, a row is kept when its root has that
 * operation; the summaries only rule out traces whose root cannot have it, so more batches may
 * follow, each after the last, larger and larger.
 */
async function pickTraces(ctx: CoreToolContext, query: SummaryQuery, wanted: number): Promise<Picked[]> {
  const kept: Picked[] = [];
  let after: SummaryCursor | undefined;
  for (let batch = wanted; ; batch = Math.min(batch * BATCH_GROWTH, MAX_BATCH)) {
    const rows = await summaryRows(ctx, query, after, batch);
    // Roots are looked up a part of the traces at a time, as the rows reach them: memory stays
    // bounded, and no root is computed past the last trace kept.
    const parts = rootParts(rows.filter(namesParent));
    const roots = new Map<string, Root>();
    let next = 0;
    for (const row of rows) {
      if (namesParent(row) && !roots.has(row.trace_hex)) {
        const part = parts[next++]!;
        const found = await rootsOf(
          ctx,
          part.map((t) => t.trace_hex),
        );
        for (const t of part) {
          const span = found.get(t.trace_hex);
          // Without a span naming no parent or a missing one, the trace is a cycle: its earliest.
          roots.set(t.trace_hex, span ? { span, orphan: span[1] !== '' } : { span: t.first, orphan: false });
        }
      }
      const root = roots.get(row.trace_hex) ?? { span: row.first, orphan: false };
      if (query.operation === undefined || root.span[2] === query.operation) kept.push({ row, root });
      if (kept.length === wanted) return kept;
    }
    if (rows.length < batch) return kept;
    after = rows.at(-1);
  }
}

/** Whether a trace's earliest span names a parent: then its root is not known from the summary. */
const namesParent = (row: SummaryRow) => row.first[1] !== '';

/**
 * Span ends are epoch ms plus a fractional duration: at that magnitude a double keeps ~0.2 us, so
 * a trace's duration is reported to the microsecond (1962.1, not 1962.10009765625).
 */
export const toMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

function toSummary({ row, root }: Picked, services: readonly string[]): TraceSummary {
  const [, , operation, service] = root.span;
  return {
    trace_id: row.trace_id,
    started_at: isoFromMs(row.started_ms),
    duration_ms: toMicrosecond(row.duration_ms),
    span_count: Number(row.span_count),
    error: Boolean(row.error),
    root_operation: sanitizeText(operation, FIELD_LIMITS.id),
    root_service: sanitizeOptional(service),
    root_orphan: root.orphan,
    services: services.map((s) => sanitizeText(s, FIELD_LIMITS.id)),
  };
}
