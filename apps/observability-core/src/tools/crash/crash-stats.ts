import { FIELD_LIMITS, sanitizeText } from '@svc/tool-kit';
import { crashStats, STATS_SIGNATURES_MAX } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { combine, equals, paramsOf, whereOf } from '../sql/filter';
import { lastDays, zeroFilledDays } from '../sql/window';
import { CRASH_LIMITS } from './crash-rows';
import { signatureHistories } from './signature-history';

/**
 * Over `[now - days, now]`, optionally one app_version: total (distinct event ids), affected users
 * (distinct non-empty user ids), the signature distribution (largest first, ties by signature;
 * error_type of the signature's latest crash; share = count / total) and crashes per UTC day,
 * zero-filled from the window's first day to today.
 */
export const crashStatsQuery = serve(crashStats, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const filter = combine(w.filter, equals('app_version', input.app_version));
  const where = whereOf(filter);
  const params = paramsOf(filter, ctx.projectId);
  const opts = { signal: ctx.signal };
  // One scan counts events per signature, per UTC day and overall (GROUPING SETS); distinct user
  // ids need their own set, so they run beside it. Distinct counts hash the ids to 64 bits first:
  // sets of integers are several times cheaper than sets of strings, and a collision among even
  // 10^8 ids has a probability below 10^-3.
  const [groups, users] = await Promise.all([
    ctx.ch.query<{ set: number; signature: string; date: string; error_type: string; n: string }>(
      `SELECT grouping(signature, toDate(timestamp, 'UTC')) AS set, signature,
         toString(toDate(timestamp, 'UTC')) AS date, argMax(error_type, timestamp) AS error_type,
         uniqExact(cityHash64(event_id)) AS n
       FROM crashes WHERE ${where}
       GROUP BY GROUPING SETS ((signature), (toDate(timestamp, 'UTC')), ())`,
      params,
      opts,
    ),
    ctx.ch.query<{ users: string }>(
      `SELECT uniqExactIf(cityHash64(user_id), user_id != '') AS users FROM crashes WHERE ${where}`,
      params,
      opts,
    ),
  ]);
  // grouping() has a bit per argument, set when the argument is NOT part of the row's set:
  // 1 = (signature), 2 = (day), 3 = ().
  const totals = [
    { total: groups.find((g) => Number(g.set) === 3)?.n ?? '0', users: users[0]?.users ?? '0' },
  ];
  const bySignature = groups.filter((g) => Number(g.set) === 1);
  const daily = groups.filter((g) => Number(g.set) === 2);
  const signatures = bySignature
    .sort(
      (a, b) =>
        Number(b.n) - Number(a.n) || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0),
    )
    .slice(0, STATS_SIGNATURES_MAX);
  const total = Number(totals[0]?.total ?? 0);
  const histories = await signatureHistories(
    ctx,
    signatures.map((s) => s.signature),
  );
  const perDay = new Map(daily.map((d) => [d.date, Number(d.n)]));
  return {
    window: w.iso,
    app_version: input.app_version ?? null,
    total,
    affected_users: Number(totals[0]?.users ?? 0),
    signature_count: bySignature.length,
    signatures: signatures.map((s) => ({
      signature: sanitizeText(s.signature, FIELD_LIMITS.id),
      error_type: sanitizeText(s.error_type, CRASH_LIMITS.errorType),
      count: Number(s.n),
      share: total > 0 ? reported(Number(s.n) / total) : 0,
      ...histories.get(s.signature)!,
    })),
    daily: zeroFilledDays(w.fromMs, w.toMs, perDay),
  };
});
