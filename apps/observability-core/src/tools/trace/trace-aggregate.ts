import { FIELD_LIMITS, fetchFor, sanitizeText } from '@svc/tool-kit';
import { traceAggregate } from '@svc/tools-trace';
import { type CoreToolContext, serve } from '../core-tool';
import { reported } from '../precision';
import { paramsOf, type SqlFilter, whereOf } from '../sql/filter';
import { inParts, LIST_PARAM_BYTES, listElementBytes } from '../sql/list-param';
import { columnInWindow, lastDays, WINDOW_FROM, WINDOW_TO } from '../sql/window';
import { finite, SPAN_DURATION_SQL } from '../stored-values';

interface Row {
  operation: string;
  /** The operation's bytes in hex: pass 2 names its rows by them (a name that is not UTF-8 reads alike). */
  op_hex: string;
  /** cityHash64 of the operation: how pass 2 picks its spans (a number, short in the statement's text). */
  op_key: string;
  weight_sum: number;
  error_weight: number;
  spans: string;
  /** Per percentile: the histogram bucket it falls in and the weight still needed inside it. */
  targets: [string, string][];
  total: number;
}

interface BucketRow {
  op_hex: string;
  bucket: string;
  /** (duration, summed integer weight), by duration. */
  pairs: [number, string][];
}

// Exact percentiles in two passes, all in the engine (quantileExactWeighted's per-operation hash of
// every distinct duration would dominate the query).
// Pass 1: the totals and, per operation, a histogram of integer weights over buckets 1/64 of a
// doubling wide: `duration_bucket`, stored with each span (migration 18), is 0 below 2^-10 ms,
// 2561 from 2^30 ms, and in between the top bits of the duration's IEEE 754 double, which order
// like the values. The sums per (operation, bucket) come from whole days of an aggregate
// projection and the edge days' spans (sumsByBucket). A histogram holds only the buckets the
// operation has spans in, sorted: its memory follows the spans, never the number of operations
// times the 2562 buckets (operations named after the ids in their routes can be many thousands).
// The percentile's bucket is the first whose cumulative weight reaches
// ceil(p W), and `need` the weight still missing when it starts. (Each threshold is computed
// before the lambda that searches for it: a lambda copies what it captures for every element it
// visits.) Pass 2, for the page's operations only: the distinct durations of their few buckets
// with their weights; the percentile is the first whose cumulative weight inside the bucket
// reaches `need`. `weight_milli` = round(1000 w), also stored with each span.
const PERCENTILES = [0.5, 0.99] as const;

const FROM = `toDate(${WINDOW_FROM})`;
const TO = `toDate(${WINDOW_TO})`;

/** The UTC days strictly inside the window [from_ms, to_ms]. */
export const WHOLE_DAYS: readonly string[] = [`toDate(start_time) > ${FROM}`, `toDate(start_time) < ${TO}`];

/**
 * Pass 1's sums per (operation, bucket) of the spans `where` selects. Over whole days the engine
 * answers from the projection p_operation_day_histogram (migration 19), whose aggregates these
 * expressions must match exactly; the two partial days at the window's edges are read span by span.
 */
export const sumsByBucket = (where: string) =>
  `SELECT operation, duration_bucket AS bucket, sum(weight) AS w, sumIf(weight, status = 'error') AS ew,
          count() AS n, sum(weight_milli) AS wm
   FROM spans WHERE ${where}
   GROUP BY operation, bucket`;

/**
 * Window [now - days, now] on start_time, per operation. A span weighs w = 1/sample_rate, an error
 * span 1 (the spans table's `weight`); count = sum(w), error_rate = sum(w of errors) / sum(w).
 * A weighted percentile p is the smallest duration whose cumulative weight, spans taken by
 * duration, reaches p of the total weight (as ClickHouse's quantileExactWeighted defines it, with
 * whole-number weights: the percentiles take w in thousandths, round(1000 w) half to even. That
 * is exact for rates whose inverse has at most three decimals (1, 0.5, 0.25, 0.2, 0.1, 0.01,
 * 0.001); for others, such as 0.3, a span's weight moves by at most 0.0005).
 */
export const traceAggregateQuery = serve(traceAggregate, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const filter = { where: columnInWindow('start_time'), params: w.filter.params };
  // The window as whole UTC days strictly inside it, and its two partial edge days.
  const wholeDays = { where: [...WHOLE_DAYS], params: {} };
  const edgeDays = {
    where: [...filter.where, `(toDate(start_time) = ${FROM} OR toDate(start_time) = ${TO})`],
    params: {},
  };
  const rows = await ctx.ch.query<Row>(
    // The histograms stay inside the subquery: only the targets leave the engine. Whole days and
    // edge days may both hold a bucket of an operation: summed into one entry first.
    `SELECT operation, op_hex, op_key, weight_sum, error_weight, spans, targets,
            sum(weight_sum) OVER () AS total
     FROM (
       SELECT operation, hex(operation) AS op_hex, toString(cityHash64(operation)) AS op_key,
              sum(w) AS weight_sum,
              sum(ew) AS error_weight,
              sum(n) AS spans,
              arraySort(groupArray((bucket, wm))) AS histogram,
              arrayCumSum(arrayMap(b -> b.2, histogram)) AS cumulative,
              ${PERCENTILES.map(
                (p, k) => `ceil(toFloat64(cumulative[-1]) * ${p}) AS need${k},
              arrayFirstIndex(c -> c >= need${k}, cumulative) AS at${k},`,
              ).join('\n              ')}
              [${PERCENTILES.map(
                (_, k) =>
                  `(toString(histogram[at${k}].1), toString(need${k} - (cumulative[at${k}] - histogram[at${k}].2)))`,
              ).join(', ')}] AS targets
       FROM (
         SELECT operation, bucket, sum(w) AS w, sum(ew) AS ew, sum(n) AS n, sum(wm) AS wm
         FROM (${sumsByBucket(whereOf(wholeDays))} UNION ALL ${sumsByBucket(whereOf(edgeDays))})
         GROUP BY operation, bucket
       )
       GROUP BY operation
     )
     ORDER BY round(weight_sum, 6) DESC, operation ASC
     LIMIT {fetch:UInt32}`,
    paramsOf(filter, ctx.projectId, { fetch: fetchFor(input.limit) }),
    { signal: ctx.signal },
  );
  const kept = rows.slice(0, input.limit);
  const pairsOf = await bucketPairs(ctx, filter, kept);
  /** The first duration of the bucket at which the cumulative weight reaches `need`. */
  const percentile = (row: Row, [bucket, need]: [string, string]): number => {
    const pairs = pairsOf.get(`${row.op_hex}:${bucket}`) ?? [];
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
    total: reported(finite(rows[0]?.total ?? 0)),
    operations: kept.map((r) => ({
      operation: sanitizeText(r.operation, FIELD_LIMITS.id),
      count: reported(finite(r.weight_sum)),
      spans: Number(r.spans),
      p50_ms: percentile(r, r.targets[0]!),
      p99_ms: percentile(r, r.targets[1]!),
      // Stored weights are never negative; a sum of zero (rates of +inf) is no errors.
      error_rate: reported(r.weight_sum > 0 ? finite(r.error_weight / r.weight_sum, 0, 1) : 0),
    })),
    limit: input.limit,
    has_more: rows.length > input.limit,
  };
});

/**
 * Pass 2: per (operation, bucket) of the percentiles of `page`, the distinct durations with their
 * summed integer weights, by duration; keyed `op_hex:bucket`. The statement names the page's
 * operations by hash (their spans are the only ones grouped) and the wanted (operation, bucket)
 * pairs, a part of the page at a time so that both lists fit in its text.
 */
async function bucketPairs(
  ctx: CoreToolContext,
  filter: SqlFilter,
  page: readonly Row[],
): Promise<Map<string, [number, string][]>> {
  const wantedOf = (r: Row) => r.targets.map(([bucket]) => `${r.op_key}:${bucket}`);
  const pairs = new Map<string, [number, string][]>();
  const parts = inParts(page, [
    { of: (r) => listElementBytes(r.op_key), max: LIST_PARAM_BYTES },
    { of: (r) => wantedOf(r).reduce((n, x) => n + listElementBytes(x), 0), max: LIST_PARAM_BYTES },
  ]);
  for (const part of parts) {
    const rows = await ctx.ch.query<BucketRow>(
      // Which (operation, bucket) pairs are wanted is checked on the grouped rows: a string
      // built per span would cost more than the few extra groups.
      `SELECT hex(operation) AS op_hex, toString(bucket) AS bucket, arraySort(groupArray((d, w))) AS pairs
       FROM (
         SELECT operation, duration_bucket AS bucket, ${SPAN_DURATION_SQL} AS d, sum(weight_milli) AS w
         FROM spans
         PREWHERE duration_bucket IN {buckets:Array(UInt16)}
         WHERE ${whereOf(filter)} AND cityHash64(operation) IN {ops:Array(UInt64)}
         GROUP BY operation, bucket, d
       )
       WHERE concat(toString(cityHash64(operation)), ':', toString(bucket)) IN {wanted:Array(String)}
       GROUP BY operation, bucket`,
      paramsOf(filter, ctx.projectId, {
        buckets: [...new Set(part.flatMap((r) => r.targets.map(([bucket]) => Number(bucket))))],
        ops: part.map((r) => r.op_key),
        wanted: part.flatMap(wantedOf),
      }),
      { signal: ctx.signal },
    );
    for (const r of rows) pairs.set(`${r.op_hex}:${r.bucket}`, r.pairs);
  }
  return pairs;
}
