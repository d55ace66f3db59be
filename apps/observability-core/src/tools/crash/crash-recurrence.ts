import { sanitizeText } from '@svc/tool-kit';
import { crashRecurrence, RECURRENCE_VERSIONS } from '@svc/tools-crash';
import { isoFromMs } from '../../storage/time';
import { type CoreToolContext, serve } from '../core-tool';
import { CRASH_LIMITS } from './crash-rows';

/**
 * Deterministic: recurred iff an event of the signature has timestamp > since (strictly). `since`
 * is parsed to epoch ms; the column has ms precision, so dropping sub-ms digits keeps `>` exact.
 * Events are distinct event ids (a re-sent event counts once). Beside it, the versions the
 * signature occurred in: a regression shows as a version after the fix with events.
 */
export const crashRecurrenceQuery = serve(crashRecurrence, async (ctx, input) => {
  const sinceMs = Date.parse(input.since);
  const [[row], versions] = await Promise.all([
    ctx.ch.query<{
      total: string;
      count_since: string;
      first_since: string;
      last_seen: string;
    }>(
      `WITH fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC') AS since
     SELECT uniqExact(event_id) AS total,
       uniqExactIf(event_id, timestamp > since) AS count_since,
       toUnixTimestamp64Milli(minIf(timestamp, timestamp > since)) AS first_since,
       toUnixTimestamp64Milli(max(timestamp)) AS last_seen
     FROM crashes
     WHERE project_id = {project_id:String} AND signature = {signature:String}`,
      { project_id: ctx.projectId, signature: input.signature, since_ms: sinceMs },
      { signal: ctx.signal },
    ),
    versionsOf(ctx, input.signature, sinceMs),
  ]);
  const total = Number(row?.total ?? 0);
  const countSince = Number(row?.count_since ?? 0);
  return {
    signature: input.signature,
    since: isoFromMs(sinceMs),
    recurred: countSince > 0,
    count_since: countSince,
    first_since: row && countSince > 0 ? isoFromMs(row.first_since) : null,
    last_seen: row && total > 0 ? isoFromMs(row.last_seen) : null,
    total,
    ...versions,
  };
});

/**
 * Per app version: distinct events, those after `since`, first and last seen. The most recently
 * seen versions are kept when there are more than the answer lists, then ordered by first seen
 * (ties by version), so the list reads as the signature's history.
 */
async function versionsOf(ctx: CoreToolContext, signature: string, sinceMs: number) {
  const rows = await ctx.ch.query<{
    app_version: string;
    count: string;
    count_since: string;
    first_ms: string;
    last_ms: string;
    version_count: string;
  }>(
    `WITH fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC') AS since
     SELECT app_version, uniqExact(event_id) AS count, uniqExactIf(event_id, timestamp > since) AS count_since,
       toUnixTimestamp64Milli(min(timestamp)) AS first_ms, toUnixTimestamp64Milli(max(timestamp)) AS last_ms,
       count() OVER () AS version_count
     FROM crashes
     WHERE project_id = {project_id:String} AND signature = {signature:String}
     GROUP BY app_version
     ORDER BY last_ms DESC, app_version
     LIMIT {versions:UInt32}`,
    { project_id: ctx.projectId, signature, since_ms: sinceMs, versions: RECURRENCE_VERSIONS },
    { signal: ctx.signal },
  );
  const versions = rows
    .map((r) => ({
      app_version: sanitizeText(r.app_version, CRASH_LIMITS.shortText),
      count: Number(r.count),
      count_since: Number(r.count_since),
      first_seen: isoFromMs(r.first_ms),
      last_seen: isoFromMs(r.last_ms),
    }))
    .sort((a, b) => byText(a.first_seen, b.first_seen) || byText(a.app_version, b.app_version));
  return { versions, version_count: Number(rows[0]?.version_count ?? 0) };
}

/** Code-point order: the same on every machine, whatever its locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
