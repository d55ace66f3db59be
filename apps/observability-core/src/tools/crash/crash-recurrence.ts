import { crashRecurrence } from '@svc/tools-crash';
import { isoFromMs } from '../../storage/time';
import { serve } from '../core-tool';

/**
 * Deterministic: recurred iff an event of the signature has timestamp > since (strictly). `since`
 * is parsed to epoch ms; the column has ms precision, so dropping sub-ms digits keeps `>` exact.
 * Events are distinct event ids (a re-sent event counts once).
 */
export const crashRecurrenceQuery = serve(crashRecurrence, async (ctx, input) => {
  const sinceMs = Date.parse(input.since);
  const [row] = await ctx.ch.query<{
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
  );
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
  };
});
