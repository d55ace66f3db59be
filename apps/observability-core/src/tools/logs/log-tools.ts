import { logAggregate, logBySession, logByUser, logRecent, logSearch } from '@svc/tools-logs';
import { isoFromMs } from '../../storage/time';
import { type AnyCoreTool, serve } from '../core-tool';
import { sanitizeOptional } from '../sanitize';
import { type LogFilter, listLogs } from './log-rows';
import { messageContains } from './message-match';

// The five log tools (DESIGN.md section 7). Each filter below is a constant SQL fragment; every
// value travels as a bound parameter.

function combine(...filters: (LogFilter | undefined)[]): LogFilter {
  const out: LogFilter = { where: [], params: {} };
  for (const f of filters) {
    if (!f) continue;
    out.where.push(...f.where);
    Object.assign(out.params, f.params);
  }
  return out;
}

const equals = (column: string, value: string | undefined): LogFilter | undefined =>
  value === undefined
    ? undefined
    : { where: [`${column} = {${column}:String}`], params: { [column]: value } };

export const logSearchTool = serve(logSearch, (ctx, input) =>
  listLogs(
    ctx,
    combine(
      equals('source', input.source),
      equals('trace_id', input.trace_id),
      equals('event_id', input.event_id),
      messageContains(input.search),
    ),
    'newest',
    input.limit,
  ),
);

export const logRecentTool = serve(logRecent, (ctx, input) =>
  listLogs(
    ctx,
    combine(equals('level', input.level), equals('source', input.source), equals('trace_id', input.trace_id)),
    'newest',
    input.limit,
  ),
);

export const logByUserTool = serve(logByUser, (ctx, input) =>
  listLogs(ctx, combine(equals('user_id', input.user_id)), 'newest', input.limit),
);

/** Oldest first: a session reads as a story. */
export const logBySessionTool = serve(logBySession, (ctx, input) =>
  listLogs(ctx, combine(equals('session_id', input.session_id)), 'oldest', input.limit),
);

const AGGREGATE_WINDOW_MS = 24 * 60 * 60 * 1000;
const GROUP_COLUMNS = { level: 'level', user_id: 'user_id', platform: 'platform' } as const;

/** Last 24 hours, [now - 24h, now]; groups by count desc, then key (lines without one last). */
export const logAggregateTool = serve(logAggregate, async (ctx, input) => {
  const column = GROUP_COLUMNS[input.group_by];
  const params = {
    project_id: ctx.projectId,
    from_ms: ctx.now - AGGREGATE_WINDOW_MS,
    to_ms: ctx.now,
    fetch: input.limit + 1,
  };
  const inWindow = `project_id = {project_id:String}
    AND timestamp >= fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')
    AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')`;
  const [groups, totals] = await Promise.all([
    ctx.ch.query<{ key: string; n: string }>(
      `SELECT ${column} AS key, count() AS n FROM logs WHERE ${inWindow}
       GROUP BY key ORDER BY n DESC, key = '' ASC, key ASC LIMIT {fetch:UInt32}`,
      params,
      { signal: ctx.signal },
    ),
    ctx.ch.query<{ total: string }>(`SELECT count() AS total FROM logs WHERE ${inWindow}`, params, {
      signal: ctx.signal,
    }),
  ]);
  return {
    window: { from: isoFromMs(params.from_ms), to: isoFromMs(params.to_ms) },
    group_by: input.group_by,
    total: Number(totals[0]?.total ?? 0),
    groups: groups.slice(0, input.limit).map((g) => ({ key: sanitizeOptional(g.key), count: Number(g.n) })),
    limit: input.limit,
    has_more: groups.length > input.limit,
  };
});

export const LOG_TOOLS: readonly AnyCoreTool[] = [
  logSearchTool,
  logRecentTool,
  logByUserTool,
  logBySessionTool,
  logAggregateTool,
];
