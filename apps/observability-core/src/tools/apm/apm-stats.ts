import { FIELD_LIMITS, sanitizeText } from '@svc/tool-kit';
import { apmStats } from '@svc/tools-apm';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { paramsOf, whereOf } from '../sql/filter';
import { lastDays } from '../sql/window';
import { METRIC_VALUE_SQL } from '../stored-values';

interface Row {
  name: string;
  unit: string;
  n: string;
  avg: number;
  q: [number, number, number];
  min: number;
  max: number;
}

/**
 * Window [now - days, now], one row per metric name, by name. Percentiles are exact with linear
 * interpolation between closest ranks (ClickHouse quantileExactInclusive, numpy's default), computed
 * in the engine: no sample is pulled into the core.
 */
export const apmStatsQuery = serve(apmStats, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const rows = await ctx.ch.query<Row>(
    `SELECT name, minIf(unit, unit != '') AS unit, count() AS n, avg(v) AS avg,
            quantilesExactInclusive(0.5, 0.95, 0.99)(v) AS q, min(v) AS min, max(v) AS max
     FROM (SELECT name, unit, ${METRIC_VALUE_SQL} AS v FROM metrics WHERE ${whereOf(w.filter)})
     GROUP BY name ORDER BY name`,
    paramsOf(w.filter, ctx.projectId),
    { signal: ctx.signal },
  );
  return {
    window: w.iso,
    metrics: rows.map((r) => ({
      name: sanitizeText(r.name, FIELD_LIMITS.id),
      unit: r.unit === '' ? null : sanitizeText(r.unit, FIELD_LIMITS.id),
      count: Number(r.n),
      avg: reported(r.avg),
      p50: reported(r.q[0]),
      p95: reported(r.q[1]),
      p99: reported(r.q[2]),
      min: r.min,
      max: r.max,
    })),
  };
});
