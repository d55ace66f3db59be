import {
  ALL_ZEROS,
  HEX_ID,
  inTimeRange,
  isSampleRate,
  isSpanDuration,
  MAX_ATTRIBUTES,
  TEXT_MAX,
} from '../field-rules';
import type { RecordType } from '../schemas';

// Fast paths for the two record types that come by the hundred thousand (spans and logs): plain
// checks instead of zod, which costs ~10 us a span in a batch, two thirds of the ingest work. A
// fast path accepts only records its checks can vouch for, in their most common form, and gives
// exactly zod's output for them; anything else (an invalid record, an ISO time with an offset, an
// attribute named __proto__) returns undefined and goes through the zod schema, which stays the
// contract and words every error. fast-records.test.ts checks both claims on generated records.
// The rules themselves (bounds, id shapes) are field-rules.ts's, shared with the schemas. Records
// an OTLP mapping made do not come here: they were checked as they were read (mapped-records.ts).

/** Thrown inside a fast path when the record needs the schema; never leaves this module. */
const SLOW = Symbol('slow path');

function need(ok: boolean): void {
  if (!ok) throw SLOW;
}

function text(value: unknown, min: number, max: number): string {
  need(typeof value === 'string' && value.length >= min && value.length <= max);
  return value as string;
}

const optionalText = (value: unknown, min: number, max: number) =>
  value === undefined ? undefined : text(value, min, max);

/** An id as the schema keeps it: one with whitespace around it goes to the schema, which trims it. */
function optionalId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  need(typeof value === 'string' && !/^\s|\s$/.test(value));
  return text(value, 1, TEXT_MAX.id);
}

function hex(value: unknown, length: keyof typeof HEX_ID): string {
  need(typeof value === 'string' && HEX_ID[length].test(value) && !ALL_ZEROS.test(value));
  return (value as string).toLowerCase();
}

const optionalHex = (value: unknown, length: keyof typeof HEX_ID) =>
  value === undefined ? undefined : hex(value, length);

/** Epoch ms, or ISO 8601 exactly as toISOString writes it (what the SDKs send). */
function time(value: unknown): number {
  if (typeof value === 'number') {
    need(Number.isInteger(value) && inTimeRange(value));
    return value;
  }
  need(typeof value === 'string' && value.length === 24);
  const ms = Date.parse(value as string);
  need(inTimeRange(ms) && new Date(ms).toISOString() === value);
  return ms;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Free-form attributes: at most MAX_ATTRIBUTES, keys and values within TEXT_MAX, kept as strings. */
function attributes(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  need(isPlainObject(value));
  const out: Record<string, string> = {};
  let count = 0;
  for (const key in value as Record<string, unknown>) {
    need(
      ++count <= MAX_ATTRIBUTES &&
        key.length >= 1 &&
        key.length <= TEXT_MAX.attributeKey &&
        key !== '__proto__',
    );
    const v = (value as Record<string, unknown>)[key];
    need(
      (typeof v === 'string' && v.length <= TEXT_MAX.attributeValue) ||
        (typeof v === 'number' && Number.isFinite(v)) ||
        typeof v === 'boolean',
    );
    out[key] = String(v);
  }
  return out;
}

/** Every key of `record` is one of `keys` (the schemas are strict). */
function onlyKeys(record: Record<string, unknown>, keys: ReadonlySet<string>): void {
  for (const key in record) need(keys.has(key));
}

const SPAN_KEYS = new Set([
  'trace_id',
  'span_id',
  'parent_span_id',
  'kind',
  'status',
  'operation',
  'service',
  'start_time',
  'duration_ms',
  'attributes',
  'user_id',
  'session_id',
  'sample_rate',
]);

function span(record: Record<string, unknown>): Record<string, unknown> {
  onlyKeys(record, SPAN_KEYS);
  const { status, duration_ms: duration, sample_rate: rate } = record;
  need(status === 'ok' || status === 'error' || status === 'unset');
  need(typeof duration === 'number' && isSpanDuration(duration));
  need(rate === undefined || (typeof rate === 'number' && isSampleRate(rate)));
  return {
    trace_id: hex(record.trace_id, 32),
    span_id: hex(record.span_id, 16),
    parent_span_id: optionalHex(record.parent_span_id, 16),
    kind: text(record.kind, 1, TEXT_MAX.kind),
    status,
    operation: text(record.operation, 1, TEXT_MAX.operation),
    service: optionalText(record.service, 1, TEXT_MAX.service),
    start_time: time(record.start_time),
    duration_ms: duration,
    attributes: attributes(record.attributes),
    user_id: optionalId(record.user_id),
    session_id: optionalId(record.session_id),
    sample_rate: rate === undefined || rate === 0 ? 1 : rate,
  };
}

const LOG_KEYS = new Set([
  'timestamp',
  'level',
  'message',
  'source',
  'platform',
  'app_version',
  'user_id',
  'session_id',
  'device_id',
  'trace_id',
  'span_id',
  'event_id',
  'attributes',
]);
const LEVELS = new Set(['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);

function log(record: Record<string, unknown>): Record<string, unknown> {
  onlyKeys(record, LOG_KEYS);
  const { level, source } = record;
  need(typeof level === 'string' && LEVELS.has(level));
  need(source === 'backend' || source === 'device');
  return {
    timestamp: time(record.timestamp),
    level,
    message: text(record.message, 0, TEXT_MAX.message),
    source,
    platform: optionalText(record.platform, 1, TEXT_MAX.platform),
    app_version: optionalText(record.app_version, 1, TEXT_MAX.appVersion),
    user_id: optionalId(record.user_id),
    session_id: optionalId(record.session_id),
    device_id: optionalId(record.device_id),
    trace_id: optionalHex(record.trace_id, 32),
    span_id: optionalHex(record.span_id, 16),
    event_id: optionalId(record.event_id),
    attributes: attributes(record.attributes),
  };
}

const FAST: Partial<Record<RecordType, (record: Record<string, unknown>) => Record<string, unknown>>> = {
  spans: span,
  logs: log,
};

/**
 * The record as its schema would parse it, when the fast path of its type can vouch for it;
 * undefined when the schema must decide (no fast path, an invalid record, an unusual form).
 */
export function fastParse(type: RecordType, record: unknown): Record<string, unknown> | undefined {
  const parse = FAST[type];
  if (!parse || !isPlainObject(record)) return undefined;
  try {
    return parse(record);
  } catch (err) {
    if (err === SLOW) return undefined;
    throw err;
  }
}
