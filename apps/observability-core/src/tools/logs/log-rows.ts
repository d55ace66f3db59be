import type { Page } from '@svc/tool-kit';
import { FIELD_LIMITS, sanitizeAttributes, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { LOG_LEVELS, type LogEntry } from '@svc/tools-logs';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import type { SqlFilter } from '../sql/filter';
import { queryPage } from '../sql/page';
import { storedChoice } from '../stored-values';

const LOG_SOURCES = ['backend', 'device'] as const;

interface LogRow {
  ts: string;
  level: string;
  message: string;
  source: string;
  platform: string;
  app_version: string;
  user_id: string;
  session_id: string;
  device_id: string;
  trace_id: string;
  span_id: string;
  event_id: string;
  attributes: Record<string, string>;
}

const COLUMNS = `toUnixTimestamp64Milli(timestamp) AS ts, level, message, source, platform, app_version,
  user_id, session_id, device_id, trace_id, span_id, event_id, attributes`;

/**
 * One page of log lines of the context's project. Ties in time are broken by message so pages
 * are stable. Fetches limit + 1 rows to know whether more exist. `point`: the filter finds its
 * rows by the sort key or a bloom filter, so the page is a few granules (point-query.ts).
 */
export async function listLogs(
  ctx: CoreToolContext,
  filter: SqlFilter,
  order: 'newest' | 'oldest',
  limit: number,
  point = false,
): Promise<Page<LogEntry>> {
  const direction = order === 'newest' ? 'DESC' : 'ASC';
  return queryPage(
    ctx,
    { columns: COLUMNS, from: 'logs', filter, orderBy: `timestamp ${direction}, message ASC`, limit, point },
    toLogEntry,
  );
}

function toLogEntry(row: LogRow): LogEntry {
  return {
    timestamp: isoFromMs(row.ts),
    // Ingest takes only these; anything else a table holds reads as the default.
    level: storedChoice(row.level, LOG_LEVELS, 'INFO'),
    message: sanitizeText(row.message, FIELD_LIMITS.message),
    source: storedChoice(row.source, LOG_SOURCES, 'backend'),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
    device_id: sanitizeOptional(row.device_id),
    trace_id: sanitizeOptional(row.trace_id),
    span_id: sanitizeOptional(row.span_id),
    event_id: sanitizeOptional(row.event_id),
    attributes: sanitizeAttributes(row.attributes),
  };
}
