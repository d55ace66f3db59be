import { sessionDetail, userDetail } from '@svc/tools-users';
import { listEvents } from '../analytics/event-rows';
import { listFeedback } from '../analytics/feedback-rows';
import { combine, equals, type RowFilter } from '../analytics/row-filter';
import { type AnyCoreTool, type CoreToolContext, serve } from '../core-tool';
import { crashSummaryPage } from '../crash/crash-lists';
import { listLogs } from '../logs/log-rows';
import { type Channel, summarize } from './channel-summary';
import { listSessions } from './session-rows';

// user.detail and session.detail (DESIGN.md section 7): each channel newest first up to `limit`,
// with its total and, over all channels, first/last seen, platforms and app versions.

function channel<T>(total: number, items: T[]) {
  return { total, items, has_more: total > items.length };
}

/**
 * Only log lines at or after the timestamp of the key's (limit + 1)-th newest line. That inner
 * query orders by the table's sorting key alone, so ClickHouse reads newest parts first and stops
 * early even for a user with millions of lines (and, for a user, reads the logs projection
 * p_user_rows ordered by user and time: a few small granules for a quiet user too, migration 12); the
 * outer one then sorts a handful of rows with the message tie-break. Same rows, same order as
 * without it.
 */
function newestLogsOnly(key: 'user_id' | 'session_id', limit: number): RowFilter {
  return {
    where: [
      `timestamp >= (SELECT min(timestamp) FROM (SELECT timestamp FROM logs
         WHERE project_id = {project_id:String} AND ${key} = {cut_id:String}
         ORDER BY timestamp DESC LIMIT {cut_rows:UInt32}))`,
    ],
    params: { cut_rows: limit + 1 },
  };
}

/** The four channels both views show, for one `key = id` filter. */
async function channels(ctx: CoreToolContext, key: 'user_id' | 'session_id', id: string, limit: number) {
  const filter = equals(key, id)!;
  const cut = newestLogsOnly(key, limit);
  const logFilter = combine(filter, { where: cut.where, params: { ...cut.params, cut_id: id } });
  const [logs, crashes, events, feedback] = await Promise.all([
    listLogs(ctx, logFilter, 'newest', limit),
    crashSummaryPage(ctx, filter, limit),
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
    channels(ctx, 'user_id', input.user_id, input.limit),
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
    channels(ctx, 'session_id', input.session_id, input.limit),
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
