import { fetchFor, sanitizeOptional } from '@svc/tool-kit';
import { AGGREGATE_HOURS, logAggregate } from '@svc/tools-logs';
import { HOUR_MS } from '../../storage/time';
import { serve } from '../core-tool';
import { paramsOf, whereOf } from '../sql/filter';
import { windowEnding } from '../sql/window';

const GROUP_COLUMNS = { level: 'level', user_id: 'user_id', platform: 'platform' } as const;

/**
 * Last 24 hours, [now - 24h, now]; groups by count desc, then key (lines without one last). Each
 * group's hourly counts come from the same scan: hour i = [from + i h, from + (i + 1) h), and a
 * line exactly at `to` falls in the last hour (the window is closed at both ends).
 */
export const logAggregateQuery = serve(logAggregate, async (ctx, input) => {
  const column = GROUP_COLUMNS[input.group_by];
  const w = windowEnding(ctx.now, AGGREGATE_HOURS * HOUR_MS);
  const where = whereOf(w.filter);
  const params = paramsOf(w.filter, ctx.projectId, { fetch: fetchFor(input.limit) });
  const hour = `least(intDiv(toUnixTimestamp64Milli(timestamp) - {from_ms:Int64}, ${HOUR_MS}), ${AGGREGATE_HOURS - 1})`;
  const [groups, totals] = await Promise.all([
    ctx.ch.query<{ key: string; n: string; hourly: string[] }>(
      `SELECT ${column} AS key, count() AS n, countResample(0, ${AGGREGATE_HOURS}, 1)(${hour}) AS hourly
       FROM logs WHERE ${where}
       GROUP BY key ORDER BY n DESC, key = '' ASC, key ASC LIMIT {fetch:UInt32}`,
      params,
      { signal: ctx.signal },
    ),
    ctx.ch.query<{ total: string }>(`SELECT count() AS total FROM logs WHERE ${where}`, params, {
      signal: ctx.signal,
    }),
  ]);
  return {
    window: w.iso,
    group_by: input.group_by,
    total: Number(totals[0]?.total ?? 0),
    groups: groups.slice(0, input.limit).map((g) => ({
      key: sanitizeOptional(g.key),
      count: Number(g.n),
      hourly: g.hourly.map(Number),
    })),
    limit: input.limit,
    has_more: groups.length > input.limit,
  };
});
