import type { CoreToolContext } from '../core-tool';
import { SAMPLE_RATE_SQL, SPAN_DURATION_SQL } from '../stored-values';
import type { TreeSpan } from './span-tree';

// One page of trace.get's tree: the trace's spans by start time, then span id (a total order for
// distinct spans, so pages at consecutive offsets hold every span once), read with OFFSET from the
// call's cursor. Every statement names project_id and trace_id exactly (the by_trace projection).

const WHERE = 'project_id = {project_id:String} AND trace_id = {trace_id:String}';
/** A column of the page's spans, as a subquery. */
const pageColumn = (column: string) => `SELECT ${column} FROM spans WHERE ${WHERE}
  ORDER BY start_time, span_id LIMIT {limit:UInt32} OFFSET {offset:UInt64}`;

type Params = { project_id: string; trace_id: string };

export interface PageRow {
  span_id: string;
  parent_span_id: string;
  operation: string;
  service: string;
  kind: string;
  status: string;
  start_ms: number;
  duration_ms: number;
  sample_rate: number;
  user_id: string;
  session_id: string;
  attributes: Record<string, string>;
}

type StoredRow = Omit<PageRow, 'start_ms'> & { start_ms: string };

/** Up to `fetch` spans from `offset` on, in page order. */
export async function pageRows(
  ctx: CoreToolContext,
  params: Params,
  offset: number,
  fetch: number,
): Promise<PageRow[]> {
  const rows = await ctx.ch.query<StoredRow>(
    `SELECT span_id, parent_span_id, operation, service, kind, status,
            toUnixTimestamp64Milli(start_time) AS start_ms, ${SPAN_DURATION_SQL} AS duration_ms,
            ${SAMPLE_RATE_SQL} AS sample_rate, user_id, session_id, attributes
     FROM spans WHERE ${WHERE}
     ORDER BY start_time, span_id
     LIMIT {fetch:UInt32} OFFSET {offset:UInt64}`,
    { ...params, fetch, offset },
    { signal: ctx.signal },
  );
  return rows.map((r) => ({ ...r, start_ms: Number(r.start_ms) }));
}

/**
 * The children of the page's spans that are on other pages, by parent span id: the page's tree
 * does not hold them, but they cover part of their parents' time.
 */
export async function childrenElsewhere(
  ctx: CoreToolContext,
  params: Params,
  offset: number,
  page: readonly PageRow[],
): Promise<Map<string, TreeSpan[]>> {
  const rows = await ctx.ch.query<TreeSpan & { start_ms: string }>(
    `SELECT span_id, parent_span_id, toUnixTimestamp64Milli(start_time) AS start_ms,
            ${SPAN_DURATION_SQL} AS duration_ms
     FROM spans WHERE ${WHERE} AND parent_span_id != span_id AND parent_span_id IN (${pageColumn('span_id')})`,
    { ...params, offset, limit: page.length },
    { signal: ctx.signal },
  );
  const onPage = new Set(page.map((s) => s.span_id));
  const byParent = new Map<string, TreeSpan[]>();
  for (const r of rows) {
    if (onPage.has(r.span_id)) continue;
    const child = { ...r, start_ms: Number(r.start_ms) };
    const siblings = byParent.get(r.parent_span_id);
    if (siblings) siblings.push(child);
    else byParent.set(r.parent_span_id, [child]);
  }
  return byParent;
}

/** The parents the page's spans name that are spans of the trace (on this page or another). */
export async function parentsInTrace(
  ctx: CoreToolContext,
  params: Params,
  offset: number,
  page: readonly PageRow[],
): Promise<Set<string>> {
  const rows = await ctx.ch.query<{ span_id: string }>(
    `SELECT DISTINCT span_id FROM spans
     WHERE ${WHERE} AND span_id IN (${pageColumn('parent_span_id')})`,
    { ...params, offset, limit: page.length },
    { signal: ctx.signal },
  );
  return new Set(rows.map((r) => r.span_id));
}
