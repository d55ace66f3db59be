import {
  MAX_METRIC_MAGNITUDE,
  MAX_RATING,
  MAX_READ_SPAN_DURATION_MS,
  MIN_SAMPLE_RATE,
} from '../ingest/value-bounds';

// Stored values as the tools read them (docs/semantics.md, "Stored values outside their bounds").
// Ingest refuses what is outside the documented bounds, but a table may hold anything (rows from
// before a bound existed, a hand-made insert): a read clamps such a value instead of failing on
// it. Numbers are clamped in SQL, where they are read, so that every sum, average and percentile
// sees the clamped value and no arithmetic on them overflows; what a tool computes from them in
// JavaScript goes through `finite`. Text columns that hold one of a fixed set of values read as a
// documented default when they hold anything else.

/** A number as a Float64 literal (an integer literal would be UInt64, which least() will not mix). */
const float = (x: number) => `toFloat64(${x})`;

/** `column` clamped to [low, high], NaN as `nan`, in SQL. */
const clampSql = (column: string, low: number, high: number, nan: number) =>
  `if(isNaN(${column}), ${float(nan)}, least(greatest(${column}, ${float(low)}), ${float(high)}))`;

/** spans.duration_ms: [0, 3650 days] (the longest span retention), NaN as 0. */
export const SPAN_DURATION_SQL = clampSql('duration_ms', 0, MAX_READ_SPAN_DURATION_MS, 0);

/** spans.sample_rate: [MIN_SAMPLE_RATE, 1]; 0 or less, NaN, or more than 1 read as 1 (everything sampled). */
export const SAMPLE_RATE_SQL = `if(sample_rate >= ${MIN_SAMPLE_RATE} AND sample_rate <= 1, sample_rate, 1)`;

/** metrics.value: [-1e15, 1e15], NaN as 0. */
export const METRIC_VALUE_SQL = clampSql('value', -MAX_METRIC_MAGNITUDE, MAX_METRIC_MAGNITUDE, 0);

/** feedback.rating: [0, 10]; NaN as NULL (no rating). */
export const RATING_SQL = `if(rating IS NULL OR isNaN(rating), NULL, least(greatest(rating, ${float(0)}), ${float(MAX_RATING)}))`;

/**
 * A number computed from stored values as a tool reports it: finite (an infinity as the nearest
 * bound, NaN as `nan`), within [low, high].
 */
export function finite(x: number, low = -Number.MAX_VALUE, high = Number.MAX_VALUE, nan = 0): number {
  if (Number.isNaN(x)) return nan;
  return Math.min(high, Math.max(low, x));
}

/** A stored choice (a log level, a file kind) as read: `fallback` when it is none of `choices`. */
export function storedChoice<T extends string>(value: string, choices: readonly T[], fallback: T): T {
  return (choices as readonly string[]).includes(value) ? (value as T) : fallback;
}
