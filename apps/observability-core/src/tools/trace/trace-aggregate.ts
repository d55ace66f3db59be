import { traceAggregate } from '@svc/tools-trace';
import { serve } from '../core-tool';
import { reported } from '../precision';
import { FIELD_LIMITS, sanitizeText } from '../sanitize';
import { paramsOf, whereOf } from '../sql/filter';
import { fetchFor } from '../sql/page';
import { columnInWindow, lastDays } from '../sql/window';

interface Row {
  operation: string;
  weight_sum: number;
  error_weight: number;
  spans: string;
  /** Per percentile: the histogram bucket it falls in and the weight still needed inside it. */
  targets: [string, string][];
  total: number;
}

interface BucketRow {
  operation: string;
  bucket: string;
  /** (duration, summed integer weight), by duration. */
  pairs: [number, string][];
}

/**
 * Window [now - days, now] on start_time, per operation. A span weighs w = 1/sample_rate, an error
 * span 1 (the spans table's `weight`); count = sum(w), error_rate = sum(w of errors) / sum(w).
 * A weighted percentile p is the smallest duration whose cumulative weight, spans taken by
 * duration, reaches p of the total weight (ClickHouse's quantileExactWeighted, whose whole-number
 * weights the percentiles use: w in thousandths, round(1000 w) half to even. That is exact for
 * rates whose inverse has at most three decimals (1, 0.5, 0.25, 0.2, 0.1, 0.01, 0.001); for
 * others, such as 0.3, a span's weight moves by at most 0.0005).
 */
export const PERCENTILE_WEIGHT_SCALE = 1000;
const PERCENTILES = [0.5, 0.99] as const;

// Exact percentiles in two passes, all in the engine (10M spans: about half the time of
// quantileExactWeighted, whose per-operation hash of every distinct duration dominates).
// Pass 1: the totals and, per operation, a histogram of integer weights over buckets 1/64 of a
// doubling wide (a duration's bucket: the top bits of its IEEE 754 double, which order like the
// values; everything under 2^-10 ms in the first, 2^30 ms and over in the last). The percentile's
// bucket is the first whose cumulative weight reaches ceil(p W), and `need` the weight still
// missing when it starts. Pass 2: the distinct durations of those few buckets with their weights;
// the percentile is the first whose cumulative weight inside the bucket reaches `need`.
const FIRST_BUCKET = 64831;
const LAST_BUCKET = 67392;
const BUCKET = `(least(toUInt32(bitShiftRight(reinterpretAsUInt64(duration_ms), 46)), ${LAST_BUCKET}) * (duration_ms >= 0.0009765625) + ${FIRST_BUCKET} * (duration_ms < 0.0009765625))`;
const WEIGHT = `toUInt64(round(weight * ${PERCENTILE_WEIGHT_SCALE}))`;

export const traceAggregateQuery = serve(traceAggregate, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const filter = { where: columnInWindow('start_time'), params: w.filter.params };
  const rows = await ctx.ch.query<Row>(
    `SELECT operation,
            sum(weight) AS weight_sum,
            sumIf(weight, status = 'error') AS error_weight,
            count() AS spans,
            sumResample(${FIRST_BUCKET}, ${LAST_BUCKET + 1}, 1)(${WEIGHT}, ${BUCKET}) AS histogram,
            arrayCumSum(histogram) AS cumulative,
            arrayMap(p -> (
                arrayFirstIndex(c -> c >= ceil(toFloat64(cumulative[-1]) * p), cumulative) AS i,
                ceil(toFloat64(cumulative[-1]) * p) - (cumulative[i] - histogram[i])),
              [${PERCENTILES.join(', ')}]) AS found,
            arrayMap(t -> (toString(${FIRST_BUCKET} - 1 + t.1), toString(t.2)), found) AS targets,
            sum(weight_sum) OVER () AS total
     FROM spans WHERE ${whereOf(filter)}
     GROUP BY operation
     ORDER BY round(weight_sum, 6) DESC, operation ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch: fetchFor(input.limit) }),
    { signal: ctx.signal },
  );
  const kept = rows.slice(0, input.limit);
  const wanted = kept.flatMap((r) =>
    r.targets.map(([bucket]) => [r.operation, Number(bucket)] as [string, number]),
  );
  const buckets =
    wanted.length === 0
      ? []
      : await ctx.ch.query<BucketRow>(
          `SELECT operation, toString(bucket) AS bucket, arraySort(groupArray((d, w))) AS pairs
           FROM (
             SELECT operation, ${BUCKET} AS bucket, duration_ms AS d, sum(${WEIGHT}) AS w
             FROM spans
             PREWHERE ${BUCKET} IN {buckets:Array(UInt32)}
             WHERE ${whereOf(filter)} AND concat(operation, '\\0', toString(bucket)) IN {wanted:Array(String)}
             GROUP BY operation, bucket, d
           )
           GROUP BY operation, bucket`,
          paramsOf(filter, ctx.projectId, {
            buckets: [...new Set(wanted.map(([, b]) => b))],
            wanted: wanted.map(([operation, bucket]) => `${operation}\u0000${bucket}`),
          }),
          { signal: ctx.signal },
        );
  const byBucket = new Map(buckets.map((b) => [`${b.operation}\u0000${b.bucket}`, b.pairs]));
  /** The first duration of the bucket at which the cumulative weight reaches `need`. */
  const percentile = (operation: string, [bucket, need]: [string, string]): number => {
    const pairs = byBucket.get(`${operation}\u0000${bucket}`) ?? [];
    let cumulative = 0;
    for (const [duration, weight] of pairs) {
      cumulative += Number(weight);
      if (cumulative >= Number(need)) return duration;
    }
    // Unreachable while both passes see the same spans; a span arriving between them can only
    // add weight, so the bucket's last duration is the closest answer.
    return pairs.at(-1)?.[0] ?? 0;
  };
  return {
    window: w.iso,
    total: reported(rows[0]?.total ?? 0),
    operations: kept.map((r) => ({
      operation: sanitizeText(r.operation, FIELD_LIMITS.id),
      count: reported(r.weight_sum),
      spans: Number(r.spans),
      p50_ms: percentile(r.operation, r.targets[0]!),
      p99_ms: percentile(r.operation, r.targets[1]!),
      error_rate: reported(r.error_weight / r.weight_sum),
    })),
    limit: input.limit,
    has_more: rows.length > input.limit,
  };
});
