import { FIELD_LIMITS, fetchFor, type Page, pageOf, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import type {
  Breadcrumb,
  CrashDetail,
  CrashSummary,
  CrashWithBreadcrumbs,
  RawFrame,
  SymbolicatedFrame,
} from '@svc/tools-crash';
import { z } from 'zod';
import { isoFromMs } from '../../storage/time';
import type { CoreToolContext } from '../core-tool';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { pointQuery } from '../sql/point-query';

// Reading crashes. A crash is its event_id: the table is a ReplacingMergeTree that collapses a
// re-sent event only when parts merge, so lists keep one row per event_id (`LIMIT 1 BY`, the
// newest copy) and counts elsewhere are distinct event ids (`uniqExact(event_id)`).
//
// Everything read here came from an app's crash report and is attacker-controlled: each text
// field is cleaned of invisible/bidi characters and capped (sanitize.ts); JSON columns are parsed
// as data only, and anything not of the documented shape is dropped rather than passed on.

/** Per-field caps for crash text (the ingest caps, so honest data is never cut). */
export const CRASH_LIMITS = {
  errorType: 500,
  frameText: 1024,
  address: 64,
  breadcrumbCategory: 200,
  breadcrumbMessage: 4096,
  breadcrumbLevel: 20,
  shortText: 100,
} as const;

export interface CrashRow {
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
  breadcrumbs?: string;
  frames?: string;
}

const SUMMARY_COLUMNS = `toUnixTimestamp64Milli(timestamp) AS ts, event_id, signature, error_type, message,
  platform, app_version, device_os, user_id, session_id`;

/**
 * Crash rows of the context's project, newest first (ties by event_id), one per event_id.
 * Fetches `fetch` rows; callers ask for limit + 1 to know whether more exist.
 */
export async function selectCrashes(
  ctx: CoreToolContext,
  filter: SqlFilter,
  fetch: number,
  extra: { breadcrumbs?: boolean; frames?: boolean; point?: boolean; offset?: number } = {},
): Promise<CrashRow[]> {
  const columns = [SUMMARY_COLUMNS];
  if (extra.breadcrumbs) columns.push('breadcrumbs');
  if (extra.frames) columns.push('frames');
  return ctx.ch.query<CrashRow>(
    `SELECT ${columns.join(', ')} FROM crashes WHERE ${whereOf(filter)}
     ORDER BY timestamp DESC, event_id ASC
     LIMIT 1 BY event_id
     LIMIT {fetch:UInt32} OFFSET {offset:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch, offset: extra.offset ?? 0 }),
    extra.point ? pointQuery(ctx.signal) : { signal: ctx.signal },
  );
}

/**
 * A page of crashes matching `filter`, newest first, one item per event_id, each with its
 * symbolication state (crash.recent, crash.by_signature, crash.by_user, user.detail, session.detail).
 */
export async function crashPage<T>(
  ctx: CoreToolContext,
  filter: SqlFilter,
  limit: number,
  toItem: (row: CrashRow, symbolication: Symbolication | undefined) => T,
  withBreadcrumbs = false,
): Promise<Page<T>> {
  const rows = await selectCrashes(ctx, filter, fetchFor(limit), {
    breadcrumbs: withBreadcrumbs,
    offset: ctx.offset ?? 0,
  });
  const symbolications = await selectSymbolications(
    ctx,
    rows.slice(0, limit).map((r) => r.event_id),
    false,
  );
  return pageOf(rows, limit, (r) => toItem(r, symbolications.get(r.event_id)));
}

export interface Symbolication {
  symbolicated: boolean;
  frames: SymbolicatedFrame[];
}

/** The latest symbolication row (crash_symbolications, written by the symbolication worker) per event id. */
export async function selectSymbolications(
  ctx: CoreToolContext,
  eventIds: string[],
  withFrames: boolean,
): Promise<Map<string, Symbolication>> {
  const out = new Map<string, Symbolication>();
  if (eventIds.length === 0) return out;
  const rows = await ctx.ch.query<{ event_id: string; symbolicated: number; frames?: string }>(
    `SELECT event_id, argMax(symbolicated, updated_at) AS symbolicated
       ${withFrames ? ', argMax(frames, updated_at) AS frames' : ''}
     FROM crash_symbolications
     WHERE project_id = {project_id:String} AND event_id IN {event_ids:Array(String)}
     GROUP BY event_id`,
    { project_id: ctx.projectId, event_ids: eventIds },
    // At most a page of ids, each found by the sort key.
    pointQuery(ctx.signal),
  );
  for (const row of rows) {
    out.set(row.event_id, {
      symbolicated: Number(row.symbolicated) === 1,
      frames: withFrames ? parseSymbolicatedFrames(row.frames ?? '[]') : [],
    });
  }
  return out;
}

export function toSummary(row: CrashRow, symbolication: Symbolication | undefined): CrashSummary {
  return {
    event_id: sanitizeText(row.event_id, FIELD_LIMITS.id),
    timestamp: isoFromMs(row.ts),
    signature: sanitizeText(row.signature, FIELD_LIMITS.id),
    error_type: sanitizeText(row.error_type, CRASH_LIMITS.errorType),
    message: sanitizeText(row.message, FIELD_LIMITS.message),
    platform: sanitizeText(row.platform, CRASH_LIMITS.shortText),
    app_version: sanitizeText(row.app_version, CRASH_LIMITS.shortText),
    device_os: sanitizeText(row.device_os, CRASH_LIMITS.shortText),
    user_id: sanitizeOptional(row.user_id),
    session_id: sanitizeOptional(row.session_id),
    symbolicated: symbolication?.symbolicated ?? false,
  };
}

export function toWithBreadcrumbs(
  row: CrashRow,
  symbolication: Symbolication | undefined,
): CrashWithBreadcrumbs {
  return { ...toSummary(row, symbolication), breadcrumbs: parseBreadcrumbs(row.breadcrumbs ?? '[]') };
}

export function toDetail(row: CrashRow, symbolication: Symbolication | undefined): CrashDetail {
  return {
    ...toWithBreadcrumbs(row, symbolication),
    frames: parseRawFrames(row.frames ?? '[]'),
    symbolicated_frames: symbolication ? symbolication.frames : null,
  };
}

// Stored JSON, read back with lenient schemas (the ingest schema made optional fields absent),
// then normalized to the published shapes. A field of the wrong type drops its element.

const storedFrame = z.object({
  function: z.string(),
  file: z.string(),
  line: z.number().int().nullish(),
  column: z.number().int().nullish(),
  in_app: z.boolean().nullish(),
  address: z.string().nullish(),
  module: z.string().nullish(),
  debug_id: z.string().nullish(),
});
const storedSymbolicatedFrame = storedFrame.extend({
  symbolicated: z.boolean(),
  reason: z.string().nullish(),
});
const storedBreadcrumb = z.object({
  timestamp: z.iso.datetime({ offset: true }),
  category: z.string(),
  message: z.string(),
  level: z.string().nullish(),
});

function parseArray<T extends z.ZodType>(json: string, item: T): z.output<T>[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const out: z.output<T>[] = [];
  for (const element of value) {
    const parsed = item.safeParse(element);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

function cleanFrame(f: z.output<typeof storedFrame>): RawFrame {
  return {
    function: sanitizeText(f.function, CRASH_LIMITS.frameText),
    file: sanitizeText(f.file, CRASH_LIMITS.frameText),
    line: f.line ?? null,
    column: f.column ?? null,
    in_app: f.in_app ?? false,
    address: sanitizeOptional(f.address, CRASH_LIMITS.address),
    module: sanitizeOptional(f.module, CRASH_LIMITS.frameText),
    debug_id: sanitizeOptional(f.debug_id, CRASH_LIMITS.frameText),
  };
}

export function parseRawFrames(json: string): RawFrame[] {
  return parseArray(json, storedFrame).map(cleanFrame);
}

export function parseSymbolicatedFrames(json: string): SymbolicatedFrame[] {
  return parseArray(json, storedSymbolicatedFrame).map((f) => ({
    ...cleanFrame(f),
    symbolicated: f.symbolicated,
    reason: sanitizeOptional(f.reason, CRASH_LIMITS.frameText),
  }));
}

export function parseBreadcrumbs(json: string): Breadcrumb[] {
  return parseArray(json, storedBreadcrumb).map((b) => ({
    timestamp: new Date(b.timestamp).toISOString(),
    category: sanitizeText(b.category, CRASH_LIMITS.breadcrumbCategory),
    message: sanitizeText(b.message, CRASH_LIMITS.breadcrumbMessage),
    level: sanitizeOptional(b.level, CRASH_LIMITS.breadcrumbLevel),
  }));
}
