import { MAX_READ_SPAN_DURATION_MS, MIN_SAMPLE_RATE } from './value-bounds';

// The rules a record field obeys, each written once. Three readers apply them, each wording a
// refusal its own way: the ingest schemas (schemas.ts, zod: the format and its messages), the fast
// paths of the batch route (fast-records.ts: plain checks that vouch for the common record), and
// the OTLP mappings (otlp-fields.ts, otlp-traces.ts: naming the OTLP field a client sent). A record
// an OTLP mapping made is checked there alone (mapped-records.ts).

/** Times a record may carry (epoch ms): from 2000 up to, not including, 2100. */
export const MIN_TIME = Date.parse('2000-01-01T00:00:00Z');
export const MAX_TIME = Date.parse('2100-01-01T00:00:00Z');

export const inTimeRange = (ms: number) => ms >= MIN_TIME && ms < MAX_TIME;

/**
 * The longest text each record field takes (characters), shared with the OTLP mappings, which
 * check the OTLP field a record field comes from against the same bound (otlp-fields.ts).
 */
export const TEXT_MAX = {
  id: 200,
  operation: 500,
  service: 200,
  metricName: 200,
  unit: 50,
  kind: 32,
  platform: 50,
  appVersion: 100,
  message: 65536,
  attributeKey: 200,
  attributeValue: 4096,
} as const;

/** Attributes one record may carry. */
export const MAX_ATTRIBUTES = 64;

/** All zeros is W3C's "invalid id" for a trace or span id, never a real one. */
export const ALL_ZEROS = /^0+$/;

/** A trace id (32) or span id (16): that many hex characters, either case. */
export const HEX_ID = {
  16: /^[0-9a-fA-F]{16}$/,
  32: /^[0-9a-fA-F]{32}$/,
} as const;

/** A span's duration (ms): not negative, and no longer than the longest span retention. */
export const isSpanDuration = (ms: number) => ms >= 0 && ms <= MAX_READ_SPAN_DURATION_MS;

/** A head-sampling rate: MIN_SAMPLE_RATE..1, or 0 (everything sampled, stored as 1). */
export const isSampleRate = (rate: number) => rate === 0 || (rate >= MIN_SAMPLE_RATE && rate <= 1);
