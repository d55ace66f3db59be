import { sanitizeOptional } from '@svc/tool-kit';
import type { TrackEvent } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { fetchFor, type Page, pageOf } from '../sql/page';
import { parseProperties } from './properties';

interface EventRow {
  ts: string;
  event_name: string;
  properties: string;
  platform: string;
  app_version: string;
  user_id: string;
  session_id: string;
}

/** Events of the context's project, newest first; ties broken so pages are stable. */
export async function listEvents(
  ctx: CoreToolContext,
  filter: SqlFilter,
  limit: number,
): Promise<Page<TrackEvent>> {
  const rows = await ctx.ch.query<EventRow>(
    `SELECT toUnixTimestamp64Milli(timestamp) AS ts, event_name, properties, platform, app_version,
       user_id, session_id
     FROM events WHERE ${whereOf(filter)}
     ORDER BY timestamp DESC, event_name ASC, user_id ASC, session_id ASC, properties ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch: fetchFor(limit) }),
    { signal: ctx.signal },
  );
  return pageOf(rows, limit, toTrackEvent);
}

function toTrackEvent(row: EventRow): TrackEvent {
  return {
    timestamp: isoFromMs(row.ts),
    event_name: sanitizeOptional(row.event_name) ?? '',
    properties: parseProperties(row.properties),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
  };
}
