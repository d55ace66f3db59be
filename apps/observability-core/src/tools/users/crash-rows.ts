import type { CrashSummary } from '@svc/tools-users';
import { isoFromMs } from '../../storage/time';
import type { Page } from '../analytics/event-rows';
import { type RowFilter, whereOf } from '../analytics/row-filter';
import type { CoreToolContext } from '../core-tool';
import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '../sanitize';

// Crashes as the user and session views list them, read straight from the crashes table
// (frames, breadcrumbs and symbolication belong to crash.get).

interface CrashRow {
  ts: string;
  event_id: string;
  signature: string;
  error_type: string;
  message: string;
  platform: string;
  app_version: string;
  device_os: string;
  user_id: string;
  session_id: string;
}

/** Newest first. FINAL: a re-sent crash (same id and time) is one crash, also before the merge. */
export async function listCrashSummaries(
  ctx: CoreToolContext,
  filter: RowFilter,
  limit: number,
): Promise<Page<CrashSummary>> {
  const rows = await ctx.ch.query<CrashRow>(
    `SELECT toUnixTimestamp64Milli(timestamp) AS ts, event_id, signature, error_type, message, platform,
       app_version, device_os, user_id, session_id
     FROM crashes FINAL WHERE ${whereOf(filter)}
     ORDER BY timestamp DESC, event_id ASC
     LIMIT {fetch:UInt32}`,
    { ...filter.params, project_id: ctx.projectId, fetch: limit + 1 },
    { signal: ctx.signal },
  );
  return { items: rows.slice(0, limit).map(toCrashSummary), has_more: rows.length > limit };
}

function toCrashSummary(row: CrashRow): CrashSummary {
  return {
    event_id: sanitizeText(row.event_id, FIELD_LIMITS.id),
    timestamp: isoFromMs(row.ts),
    signature: sanitizeText(row.signature, FIELD_LIMITS.id),
    error_type: sanitizeText(row.error_type, FIELD_LIMITS.attributeValue),
    message: sanitizeText(row.message, FIELD_LIMITS.message),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
    device_os: sanitizeOptional(row.device_os),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
  };
}
