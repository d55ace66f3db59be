import { feedbackSearch, TOP_EVENTS_MAX, trackRecent, trackStats } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import { type AnyCoreTool, serve } from '../core-tool';
import { messageContains } from '../logs/message-match';
import { FIELD_LIMITS, sanitizeText } from '../sanitize';
import { zeroFilledDays } from './daily';
import { listEvents } from './event-rows';
import { countFeedback, listFeedback } from './feedback-rows';
import { combine, equals } from './row-filter';
import { containsAny, jsonEscaped } from './text-match';

// track.recent, track.stats and feedback.search (DESIGN.md section 7). Filters are constant SQL
// fragments; every value travels as a bound parameter.

/**
 * `search` matches the event name or the properties as stored (JSON text). A needle also matches
 * its JSON-escaped form, so a value with quotes or backslashes is found as the user typed it.
 */
export const trackRecentTool = serve(trackRecent, async (ctx, input) => {
  const search =
    input.search === undefined
      ? undefined
      : containsAny(['event_name', 'properties'], [input.search, jsonEscaped(input.search)], 'search');
  const filter = combine(equals('event_name', input.name), equals('user_id', input.user_id), search);
  const page = await listEvents(ctx, filter, input.limit);
  return { items: page.items, limit: input.limit, has_more: page.has_more };
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** Window [now - days, now]; top events by count desc then name; UTC days zero-filled. */
export const trackStatsTool = serve(trackStats, async (ctx, input) => {
  const params = { project_id: ctx.projectId, from_ms: ctx.now - input.days * DAY_MS, to_ms: ctx.now };
  const inWindow = `project_id = {project_id:String}
    AND timestamp >= fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')
    AND timestamp <= fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')`;
  const opts = { signal: ctx.signal };
  const [totals, top, days] = await Promise.all([
    ctx.ch.query<{ total: string; users: string }>(
      `SELECT count() AS total, uniqExact(user_id) AS users FROM events WHERE ${inWindow}`,
      params,
      opts,
    ),
    ctx.ch.query<{ event_name: string; n: string; users: string }>(
      `SELECT event_name, count() AS n, uniqExact(user_id) AS users FROM events WHERE ${inWindow}
       GROUP BY event_name ORDER BY n DESC, event_name ASC LIMIT {top:UInt32}`,
      { ...params, top: TOP_EVENTS_MAX },
      opts,
    ),
    ctx.ch.query<{ date: string; n: string }>(
      `SELECT toString(toDate(timestamp, 'UTC')) AS date, count() AS n FROM events WHERE ${inWindow}
       GROUP BY date`,
      params,
      opts,
    ),
  ]);
  return {
    window: { from: isoFromMs(params.from_ms), to: isoFromMs(params.to_ms) },
    total: Number(totals[0]?.total ?? 0),
    unique_users: Number(totals[0]?.users ?? 0),
    top_events: top.map((t) => ({
      event_name: sanitizeText(t.event_name, FIELD_LIMITS.id),
      count: Number(t.n),
      users: Number(t.users),
    })),
    daily: zeroFilledDays(params.from_ms, params.to_ms, new Map(days.map((d) => [d.date, Number(d.n)]))),
  };
});

/** With only user_id this is the user's whole history, paged by limit, with its total. */
export const feedbackSearchTool = serve(feedbackSearch, async (ctx, input) => {
  const filter = combine(
    equals('user_id', input.user_id),
    input.search === undefined ? undefined : messageContains(input.search),
  );
  const [page, total] = await Promise.all([
    listFeedback(ctx, filter, input.limit),
    countFeedback(ctx, filter),
  ]);
  return { items: page.items, total, limit: input.limit, has_more: page.has_more };
});

export const ANALYTICS_TOOLS: readonly AnyCoreTool[] = [trackRecentTool, trackStatsTool, feedbackSearchTool];
