import { crashStats, STATS_SIGNATURES_MAX } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { FIELD_LIMITS, sanitizeText } from '../sanitize';
import { CRASH_LIMITS } from './crash-rows';
import { lastDays, utcDates } from './crash-window';

/**
 * Over `[now - days, now]`, optionally one app_version: total (distinct event ids), affected users
 * (distinct non-empty user ids), the signature distribution (largest first, ties by signature;
 * error_type of the signature's latest crash; share = count / total) and crashes per UTC day,
 * zero-filled from the window's first day to today.
 */
export const crashStatsTool = serve(crashStats, async (ctx, input) => {
  const w = lastDays(ctx, input.days);
  const conditions = ['project_id = {project_id:String}', w.where];
  if (input.app_version !== undefined) conditions.push('app_version = {app_version:String}');
  const where = conditions.join(' AND ');
  const params = {
    ...w.params,
    project_id: ctx.projectId,
    app_version: input.app_version ?? '',
    top: STATS_SIGNATURES_MAX,
  };
  const opts = { signal: ctx.signal };
  const [totals, signatures, daily] = await Promise.all([
    ctx.ch.query<{ total: string; users: string; signatures: string }>(
      `SELECT uniqExact(event_id) AS total, uniqExactIf(user_id, user_id != '') AS users,
         uniqExact(signature) AS signatures
       FROM crashes WHERE ${where}`,
      params,
      opts,
    ),
    ctx.ch.query<{ signature: string; error_type: string; n: string }>(
      `SELECT signature, argMax(error_type, timestamp) AS error_type, uniqExact(event_id) AS n
       FROM crashes WHERE ${where}
       GROUP BY signature ORDER BY n DESC, signature ASC LIMIT {top:UInt32}`,
      params,
      opts,
    ),
    ctx.ch.query<{ date: string; n: string }>(
      `SELECT toString(toDate(timestamp, 'UTC')) AS date, uniqExact(event_id) AS n
       FROM crashes WHERE ${where} GROUP BY date`,
      params,
      opts,
    ),
  ]);
  const total = Number(totals[0]?.total ?? 0);
  const perDay = new Map(daily.map((d) => [d.date, Number(d.n)]));
  return {
    window: w.iso,
    app_version: input.app_version ?? null,
    total,
    affected_users: Number(totals[0]?.users ?? 0),
    signature_count: Number(totals[0]?.signatures ?? 0),
    signatures: signatures.map((s) => ({
      signature: sanitizeText(s.signature, FIELD_LIMITS.id),
      error_type: sanitizeText(s.error_type, CRASH_LIMITS.errorType),
      count: Number(s.n),
      share: total > 0 ? Number(s.n) / total : 0,
    })),
    daily: utcDates(w.fromMs, w.toMs).map((date) => ({ date, count: perDay.get(date) ?? 0 })),
  };
});
