import { DAY_MS } from '../storage/time';

// The ranges of the numbers a record may carry (docs/ingest.md, "Value bounds"), shared by the
// ingest schemas, which refuse what is outside, and the tools, which clamp whatever a table holds
// anyway (docs/semantics.md, "Stored values outside their bounds"). Each keeps the arithmetic the
// tools do on the column (sums, averages, 1 / rate, x 1000 for rounding) finite and exact enough.

/**
 * The longest span retention the configuration allows (SVC_SPAN_RETENTION_DAYS <= 3650): no span
 * reads back longer. Ingest bounds a duration by the configured span retention, which is shorter.
 */
export const MAX_READ_SPAN_DURATION_MS = 3650 * DAY_MS;

/**
 * A metric value's magnitude: every integer up to it is exact in a Float64, and a billion of
 * them still sum to a finite number.
 */
export const MAX_METRIC_MAGNITUDE = 1e15;

/**
 * The smallest head-sampling rate (one span kept in a million): a span weighs 1 / rate, stored in
 * thousandths as a UInt64, and an infinite weight would fail the insert itself.
 */
export const MIN_SAMPLE_RATE = 1e-6;

export const MAX_RATING = 10;

/** Stack frame line and column numbers: non-negative Int32, as engines and source maps count them. */
export const MAX_FRAME_POSITION = 2 ** 31 - 1;

/**
 * How deep a JSON request body may nest (arrays and objects). The formats themselves need at most
 * about 40 levels (an OTLP attribute nested as deep as allowed); more is refused before any
 * schema walks it.
 */
export const MAX_JSON_DEPTH = 64;

/** How deep event `properties` may nest below the properties object itself. */
export const MAX_PROPERTIES_DEPTH = 32;
