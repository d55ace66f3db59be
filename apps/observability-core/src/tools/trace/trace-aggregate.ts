import { traceAggregate } from '@svc/tools-trace';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { FIELD_LIMITS, sanitizeText } from '../sanitize';
import { paramsOf, whereOf } from '../sql/filter';
import { fetchFor, pageOf } from '../sql/page';
import { columnInWindow, lastDays } from '../sql/window';

interface Row {
  operation: string;
  weight_sum: number;
  error_weight: number;
  spans: string;
  p50: number;
  p99: number;
  total: number;
}

/**
 * Window [now - days, now] on start_time, per operation. A span weighs w = 1/sample_rate, an error
 * span 1 (the spans table's `weight`); count = sum(w), error_rate = sum(w of errors) / sum(w).
 * A weighted percentile p is the smallest duration whose cumulative weight, spans taken by
 * duration, reaches p of the total weight. It is computed in the engine by quantileExactWeighted,
 * which counts integer weights: the percentiles take w in thousandths, round(1000 w) half to
 * even. That is exact for rates whose inverse has at most three decimals (1, 0.5, 0.25, 0.2, 0.1,
 * 0.01, 0.001); for others, such as 0.3, a span's weight moves by at most 0.0005.
 */
export const PERCENTILE_WEIGHT_SCALE = 1000;

export const traceAggregateQuery = serve(traceAggregate, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const filter = { where: columnInWindow('start_time'), params: w.filter.params };
  const rows = await ctx.ch.query<Row>(
    `SELECT operation,
            sum(weight) AS weight_sum,
            sumIf(weight, status = 'error') AS error_weight,
            count() AS spans,
            quantilesExactWeighted(0.5, 0.99)(duration_ms, toUInt64(round(weight * ${PERCENTILE_WEIGHT_SCALE}))) AS q,
            q[1] AS p50, q[2] AS p99,
            sum(weight_sum) OVER () AS total
     FROM spans WHERE ${whereOf(filter)}
     GROUP BY operation
     ORDER BY round(weight_sum, 6) DESC, operation ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch: fetchFor(input.limit) }),
    { signal: ctx.signal },
  );
  const page = pageOf(rows, input.limit, (r) => ({
    operation: sanitizeText(r.operation, FIELD_LIMITS.id),
    count: reported(r.weight_sum),
    spans: Number(r.spans),
    p50_ms: r.p50,
    p99_ms: r.p99,
    error_rate: reported(r.error_weight / r.weight_sum),
  }));
  return {
    window: w.iso,
    total: reported(rows[0]?.total ?? 0),
    operations: page.items,
    limit: page.limit,
    has_more: page.has_more,
  };
});
