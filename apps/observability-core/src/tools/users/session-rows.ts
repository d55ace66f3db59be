import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { SESSION_STATUSES, type SessionSummary } from '@svc/tools-users';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { fetchFor, type Page, pageOf } from '../sql/page';
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
  const rows = await ctx.ch.query<SessionRow>(
    `SELECT session_id, user_id, status, toUnixTimestamp64Milli(started_at) AS started_ms,
       if(ended_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(ended_at))) AS ended_ms,
       platform, app_version
     FROM sessions FINAL WHERE ${whereOf(filter)}
     ORDER BY started_at DESC, session_id ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch: fetchFor(limit) }),
    { signal: ctx.signal },
  );
  return pageOf(rows, limit, toSessionSummary);
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
