import { FIELD_LIMITS, fetchFor, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { apmMemoryGrowth, MEMORY_METRIC, MIN_MEMORY_SAMPLES } from '@svc/tools-apm';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { paramsOf, whereOf } from '../sql/filter';
import { lastDays } from '../sql/window';
import { finite, METRIC_VALUE_SQL } from '../stored-values';

interface GrowthRow {
  session_id: string;
  user_id: string;
  samples: string;
  cxy: number;
  vx: number;
  vy: number;
  first_mb: number;
  last_mb: number;
}

/**
 * Least squares in the engine, per session: x = minutes since the session's first sample in the
 * window, y = MB; slope = cov(x, y) / var(x), r2 = cov^2 / (var(x) var(y)), and 1 when memory is
 * constant (a flat line fits it exactly). The numerically stable (Welford) aggregates are used.
 * Sessions whose samples all share one instant have no slope and are left out. first/last: the
 * earliest/latest sample (at a shared instant, the smallest first and the largest last).
 */
export const apmMemoryGrowthQuery = serve(apmMemoryGrowth, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const filter = {
    where: [...w.filter.where, 'name = {metric:String}', "session_id != ''"],
    params: { ...w.filter.params, metric: MEMORY_METRIC },
  };
  const rows = await ctx.ch.query<GrowthRow>(
    `SELECT session_id,
            argMaxIf(user_id, ts, user_id != '') AS user_id,
            count() AS samples,
            covarPopStable(x, v) AS cxy,
            varPopStable(x) AS vx,
            varPopStable(v) AS vy,
            argMin(v, (ts, v)) AS first_mb,
            argMax(v, (ts, v)) AS last_mb
     FROM (
       SELECT session_id, user_id, ${METRIC_VALUE_SQL} AS v, toUnixTimestamp64Milli(timestamp) AS ts,
              (ts - min(ts) OVER (PARTITION BY session_id)) / 60000 AS x
       FROM metrics WHERE ${whereOf(filter)}
     )
     GROUP BY session_id
     HAVING samples >= {min_samples:UInt32} AND vx > 0
     ORDER BY cxy / vx DESC, session_id ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { min_samples: MIN_MEMORY_SAMPLES, fetch: fetchFor(input.limit) }),
    { signal: ctx.signal },
  );
  return {
    window: w.iso,
    items: rows.slice(0, input.limit).map((r) => ({
      session_id: sanitizeText(r.session_id, FIELD_LIMITS.id),
      user_id: sanitizeOptional(r.user_id),
      samples: Number(r.samples),
      slope_mb_per_min: reported(finite(r.cxy / r.vx)),
      first_mb: r.first_mb,
      last_mb: r.last_mb,
      r2: r.vy === 0 ? 1 : finite(reported((r.cxy * r.cxy) / (r.vx * r.vy)), 0, 1),
    })),
    limit: input.limit,
    has_more: rows.length > input.limit,
  };
});
