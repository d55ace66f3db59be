import { FIELD_LIMITS, sanitizeText } from '@svc/tool-kit';
import { TOP_EVENTS_MAX, trackStats } from '@svc/tools-analytics';
import { serve } from '../core-tool';
import { paramsOf, whereOf } from '../sql/filter';
import { lastDays, zeroFilledDays } from '../sql/window';

/** Window [now - days, now]; top events by count desc then name; UTC days zero-filled. */
export const trackStatsQuery = serve(trackStats, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const where = whereOf(w.filter);
  const params = paramsOf(w.filter, ctx.projectId, { top: TOP_EVENTS_MAX });
  const opts = { signal: ctx.signal };
  const [totals, top, days] = await Promise.all([
    ctx.ch.query<{ total: string; users: string }>(
      `SELECT count() AS total, uniqExact(user_id) AS users FROM events WHERE ${where}`,
      params,
      opts,
    ),
    ctx.ch.query<{ event_name: string; n: string; users: string }>(
      `SELECT event_name, count() AS n, uniqExact(user_id) AS users FROM events WHERE ${where}
       GROUP BY event_name ORDER BY n DESC, event_name ASC LIMIT {top:UInt32}`,
      params,
      opts,
    ),
    ctx.ch.query<{ date: string; n: string }>(
      `SELECT toString(toDate(timestamp, 'UTC')) AS date, count() AS n FROM events WHERE ${where}
       GROUP BY date`,
      params,
      opts,
    ),
  ]);
  return {
    window: w.iso,
    total: Number(totals[0]?.total ?? 0),
    unique_users: Number(totals[0]?.users ?? 0),
    top_events: top.map((t) => ({
      event_name: sanitizeText(t.event_name, FIELD_LIMITS.id),
      count: Number(t.n),
      users: Number(t.users),
    })),
    daily: zeroFilledDays(w.fromMs, w.toMs, new Map(days.map((d) => [d.date, Number(d.n)]))),
  };
});
