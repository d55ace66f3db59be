import type { Page } from '@svc/tool-kit';
import { sanitizeOptional } from '@svc/tool-kit';
import type { TrackEvent } from '@svc/tools-analytics';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import type { SqlFilter } from '../sql/filter';
import { queryPage } from '../sql/page';
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
  return queryPage(
    ctx,
    {
      columns: `toUnixTimestamp64Milli(timestamp) AS ts, event_name, properties, platform, app_version,
       user_id, session_id`,
      from: 'events',
      filter,
      orderBy: 'timestamp DESC, event_name ASC, user_id ASC, session_id ASC, properties ASC',
      limit,
    },
    toTrackEvent,
  );
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
