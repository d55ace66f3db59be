import { sessionDetail, userDetail } from '@svc/tools-users';
import { listEvents } from '../analytics/event-rows';
import { listFeedback } from '../analytics/feedback-rows';
import { equals, type RowFilter } from '../analytics/row-filter';
import { type AnyCoreTool, type CoreToolContext, serve } from '../core-tool';
import { listLogs } from '../logs/log-rows';
import { type Channel, summarize } from './channel-summary';
import { listCrashSummaries } from './crash-rows';
import { listSessions } from './session-rows';

// user.detail and session.detail (DESIGN.md section 7): each channel newest first up to `limit`,
// with its total and, over all channels, first/last seen, platforms and app versions.

function channel<T>(total: number, items: T[]) {
  return { total, items, has_more: total > items.length };
}

/** The four channels both views show, for one `key = id` filter. */
async function channels(ctx: CoreToolContext, filter: RowFilter, limit: number) {
  const [logs, crashes, events, feedback] = await Promise.all([
    listLogs(ctx, filter, 'newest', limit),
    listCrashSummaries(ctx, filter, limit),
    listEvents(ctx, filter, limit),
    listFeedback(ctx, filter, limit),
  ]);
  return { logs: logs.items, crashes: crashes.items, events: events.items, feedback: feedback.items };
}

const ALL: readonly Channel[] = ['logs', 'crashes', 'events', 'feedback', 'sessions'];

export const userDetailTool = serve(userDetail, async (ctx, input) => {
  const filter = equals('user_id', input.user_id)!;
  const [seen, lists, sessions] = await Promise.all([
    summarize(ctx, 'user_id', input.user_id, ALL),
    channels(ctx, filter, input.limit),
    listSessions(ctx, filter, input.limit),
  ]);
  return {
    user_id: input.user_id,
    found: seen.found,
    first_seen: seen.first_seen,
    last_seen: seen.last_seen,
    platforms: seen.platforms,
    app_versions: seen.app_versions,
    limit: input.limit,
    logs: channel(seen.totals.logs, lists.logs),
    crashes: channel(seen.totals.crashes, lists.crashes),
    events: channel(seen.totals.events, lists.events),
    feedback: channel(seen.totals.feedback, lists.feedback),
    sessions: channel(seen.totals.sessions, sessions.items),
  };
});

export const sessionDetailTool = serve(sessionDetail, async (ctx, input) => {
  const filter = equals('session_id', input.session_id)!;
  const [seen, lists, record] = await Promise.all([
    summarize(ctx, 'session_id', input.session_id, ALL),
    channels(ctx, filter, input.limit),
    listSessions(ctx, filter, 1),
  ]);
  return {
    session_id: input.session_id,
    found: seen.found,
    session: record.items[0] ?? null,
    user_ids: seen.user_ids,
    first_seen: seen.first_seen,
    last_seen: seen.last_seen,
    platforms: seen.platforms,
    app_versions: seen.app_versions,
    limit: input.limit,
    logs: channel(seen.totals.logs, lists.logs),
    crashes: channel(seen.totals.crashes, lists.crashes),
    events: channel(seen.totals.events, lists.events),
    feedback: channel(seen.totals.feedback, lists.feedback),
  };
});

export const USER_TOOLS: readonly AnyCoreTool[] = [userDetailTool, sessionDetailTool];
