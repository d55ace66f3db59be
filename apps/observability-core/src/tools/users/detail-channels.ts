import { listEvents } from '../analytics/event-rows';
import { listFeedback } from '../analytics/feedback-rows';
import type { CoreToolContext } from '../core-tool';
import { crashPage, toSummary } from '../crash/crash-rows';
import { listLogs } from '../logs/log-rows';
import { combine, equalsKey, type SqlFilter } from '../sql/filter';
import type { Channel } from './channel-summary';

// What user.detail and session.detail share (docs/semantics.md): each channel newest first up to
// `limit`, with its total.

export const ALL_CHANNELS: readonly Channel[] = ['logs', 'crashes', 'events', 'feedback', 'sessions'];

export function channel<T>(total: number, items: T[]) {
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
function newestLogsOnly(key: 'user_id' | 'session_id', id: string, limit: number): SqlFilter {
  return {
    where: [
      `timestamp >= (SELECT min(timestamp) FROM (SELECT timestamp FROM logs
         WHERE project_id = {project_id:String} AND ${key} = {cut_id:String}
         ORDER BY timestamp DESC LIMIT {cut_rows:UInt32}))`,
    ],
    params: { cut_rows: limit + 1, cut_id: id },
  };
}

/** The four channels both views list, for one `key = id`. */
export async function listChannels(
  ctx: CoreToolContext,
  key: 'user_id' | 'session_id',
  id: string,
  limit: number,
) {
  const filter = equalsKey(key, id);
  const [logs, crashes, events, feedback] = await Promise.all([
    listLogs(ctx, combine(filter, newestLogsOnly(key, id, limit)), 'newest', limit),
    crashPage(ctx, filter, limit, toSummary),
    listEvents(ctx, filter, limit),
    listFeedback(ctx, filter, limit),
  ]);
  return { logs: logs.items, crashes: crashes.items, events: events.items, feedback: feedback.items };
}

/** The four listed channels, each with its total over everything stored. */
export function channelsWithTotals(
  totals: Record<Channel, number>,
  lists: Awaited<ReturnType<typeof listChannels>>,
) {
  return {
    logs: channel(totals.logs, lists.logs),
    crashes: channel(totals.crashes, lists.crashes),
    events: channel(totals.events, lists.events),
    feedback: channel(totals.feedback, lists.feedback),
  };
}
