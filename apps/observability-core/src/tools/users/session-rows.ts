import type { Page } from '@svc/tool-kit';
import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { SESSION_STATUSES, type SessionSummary } from '@svc/tools-users';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import type { SqlFilter } from '../sql/filter';
import { queryPage } from '../sql/page';
import { storedChoice } from '../stored-values';

interface SessionRow {
  session_id: string;
  user_id: string;
  status: string;
  started_ms: string;
  ended_ms: string | null;
  platform: string;
  app_version: string;
}

/** Sessions as last reported (FINAL: the latest report wins), most recently started first. */
export async function listSessions(
  ctx: CoreToolContext,
  filter: SqlFilter,
  limit: number,
): Promise<Page<SessionSummary>> {
  return queryPage(
    ctx,
    {
      columns: `session_id, user_id, status, toUnixTimestamp64Milli(started_at) AS started_ms,
       if(ended_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(ended_at))) AS ended_ms,
       platform, app_version`,
      from: 'sessions FINAL',
      filter,
      orderBy: 'started_at DESC, session_id ASC',
      limit,
    },
    toSessionSummary,
  );
}

function toSessionSummary(row: SessionRow): SessionSummary {
  return {
    session_id: sanitizeText(row.session_id, FIELD_LIMITS.id),
    user_id: sanitizeOptional(row.user_id),
    // Ingest takes only these; anything else a table holds reads as abnormal.
    status: storedChoice(row.status, SESSION_STATUSES, 'abnormal'),
    started_at: isoFromMs(row.started_ms),
    ended_at: row.ended_ms === null ? null : isoFromMs(row.ended_ms),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
  };
}
