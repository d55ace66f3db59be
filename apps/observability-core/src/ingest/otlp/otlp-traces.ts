// OTLP/HTTP traces (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding; JSON as sent,
// or protobuf decoded to the same shape) mapped to our span records (docs/ingest.md, "OTLP traces,
// logs and metrics"). Each field is checked once, as it is read, against the rules the batch
// format holds (field-rules.ts); the records are not checked again (validate/mapped-records.ts).
// Ids are hex; enums may be numbers or their names. Fields of the wrong type, or with a value the
// span would refuse, are problems named by their path (otlp-shape.ts, otlp-fields.ts).

import { isSampleRate, TEXT_MAX } from '../field-rules';
import { BodyPath } from '../json/json-path';
import { MAX_READ_SPAN_DURATION_MS, MIN_SAMPLE_RATE } from '../value-bounds';
import { checkLength, idAt, msOf, nameAt, timeAt } from './otlp-fields';
import {
  enumAt,
  type FieldSources,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  requestObject,
  stringAt,
} from './otlp-shape';
import {
  attributePath,
  attributesAt,
  checkAttributeCount,
  firstOf,
  hasAny,
  idFromAttributes,
  resourceOf,
  SESSION_KEYS,
  USER_KEYS,
} from './otlp-values';

/** SpanKind by number; 0 (unspecified) is internal, as OpenTelemetry reads it. */
const KIND_NAMES = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
] as const;
const KINDS = ['internal', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

const STATUS_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'] as const;
const STATUSES = ['unset', 'ok', 'error'] as const;

/** The attribute that carries the head-sampling rate of a span. */
const RATE_KEYS = ['sampling.rate', 'sample_rate'];

/**
 * The sampling probability an OpenTelemetry probability sampler wrote into the span's tracestate
 * (the `ot` entry): `th:<hex>`, a rejection threshold of up to 14 hex digits over 2^56
 * (probability 1 - th / 2^56; `th:8` is 0.5), or the older `p:<n>` (probability 2^-n).
 */
export function rateFromTraceState(traceState: string | undefined): number | undefined {
  const ot = /(?:^|,)\s*ot=([^,]*)/.exec(traceState ?? '')?.[1];
  for (const part of ot?.split(';') ?? []) {
    const [key, value = ''] = part.trim().split(':');
    if (key === 'th' && /^[0-9a-f]{1,14}$/.test(value))
      return 1 - Number.parseInt(value.padEnd(14, '0'), 16) / 2 ** 56;
    if (key === 'p' && /^\d{1,2}$/.test(value) && Number(value) <= 62) return 2 ** -Number(value);
  }
  return undefined;
}

const RATE_RANGE = `between ${MIN_SAMPLE_RATE.toFixed(6)} and 1 (or 0: everything sampled)`;

/**
 * The span's rate: its attribute when it states one, else its tracestate's; out of range, a
 * problem naming the attribute's value or `traceState`.
 */
function rateOf(
  s: OtlpObject,
  attributes: Record<string, string>,
  traceState: string | undefined,
  path: BodyPath,
  out: OtlpOutput,
): number | undefined {
  const stated = firstOf(attributes, RATE_KEYS);
  const rate = stated ? Number(stated[1]) : Number.NaN;
  if (Number.isFinite(rate)) {
    if (isSampleRate(rate)) return rate;
    out.problem(attributePath(s, 'attributes', path, stated![0]), `must be ${RATE_RANGE}`);
    return undefined;
  }
  const fromState = rateFromTraceState(traceState);
  if (fromState === undefined || isSampleRate(fromState)) return fromState;
  out.problem(
    path.child('traceState'),
    `its ot sampling threshold gives a rate of ${fromState}, below ${MIN_SAMPLE_RATE.toFixed(6)}`,
  );
  return undefined;
}

/** Where a span record's fields come from in its OTLP span. */
const SPAN_FIELDS: FieldSources = {
  trace_id: ['traceId'],
  span_id: ['spanId'],
  parent_span_id: ['parentSpanId'],
  kind: ['kind'],
  status: ['status', 'code'],
  operation: ['name'],
  start_time: ['startTimeUnixNano'],
  duration_ms: ['endTimeUnixNano'],
  attributes: ['attributes'],
  user_id: ['attributes'],
  session_id: ['attributes'],
  sample_rate: ['attributes'],
};

/** The longest a span may last, in nanoseconds (the longest span retention allowed). */
const MAX_DURATION_NANOS = BigInt(MAX_READ_SPAN_DURATION_MS) * 1_000_000n;
const MAX_DURATION_DAYS = MAX_READ_SPAN_DURATION_MS / 86_400_000;

function span(
  s: OtlpObject,
  path: BodyPath,
  service: string | undefined,
  out: OtlpOutput,
): Record<string, unknown> | undefined {
  const before = out.problemCount;
  // In the order of the Span message's fields, so that problems are listed as the span reads.
  const traceId = idAt(s, 'traceId', 32, path, out, true);
  const spanId = idAt(s, 'spanId', 16, path, out, true);
  const traceState = stringAt(s, 'traceState', path, out);
  const parent = idAt(s, 'parentSpanId', 16, path, out, false);
  const name = nameAt(s, 'name', TEXT_MAX.operation, path, out);
  const kind = enumAt(s, 'kind', KIND_NAMES, path, out);
  const start = timeAt(s, 'startTimeUnixNano', path, out, { required: true });
  const end = timeAt(s, 'endTimeUnixNano', path, out, { required: true, relative: true });
  if (start !== undefined && end !== undefined) {
    if (end < start) out.problem(path.child('endTimeUnixNano'), 'must not be before startTimeUnixNano');
    else if (end - start > MAX_DURATION_NANOS)
      out.problem(
        path.child('endTimeUnixNano'),
        `must be at most ${MAX_DURATION_DAYS} days after startTimeUnixNano (the longest a span is kept)`,
      );
  }
  const attributes = attributesAt(s, 'attributes', path, out);
  checkAttributeCount(attributes, path.child('attributes'), out);
  const status = objectAt(s, 'status', path, out);
  const code = status ? enumAt(status, 'code', STATUS_NAMES, path.child('status'), out) : 0;
  const user = idFromAttributes(attributes, USER_KEYS, s, path, out);
  const session = idFromAttributes(attributes, SESSION_KEYS, s, path, out);
  const rate = rateOf(s, attributes, traceState, path, out);
  if (out.problemCount > before) return undefined;
  // One object literal with every key (undefined where absent): conditional spreads would make
  // each record a slow dictionary object, and validation 3x slower per span.
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    kind: KINDS[kind!],
    status: STATUSES[code!],
    operation: name,
    service: service || undefined,
    start_time: msOf(start!),
    duration_ms: Number(end! - start!) / 1e6,
    attributes: hasAny(attributes) ? attributes : undefined,
    user_id: user,
    session_id: session,
    sample_rate: rate,
  };
}

/**
 * Our span records for an OTLP traces request, into `out`: the resource's `service.name` is the
 * service, the span name the operation, the kind and status mapped, the duration from start and
 * end, the sampling rate from the span's attributes or its tracestate. Events and links are not
 * kept. Yields after each span, so that the caller can pause between slices.
 */
export function* spansFromOtlp(body: unknown, out: OtlpOutput): Generator<void> {
  const request = requestObject(body, 'an OTLP ExportTraceServiceRequest');
  for (const [resourceSpans, resourcePath] of objectsOf(request, 'resourceSpans', BodyPath.ROOT, out)) {
    const resource = resourceOf(resourceSpans, resourcePath, out);
    const service = resource.attributes['service.name'];
    if (service) checkLength(service, TEXT_MAX.service, resource.at('service.name'), out);
    for (const [scope, scopePath] of objectsOf(resourceSpans, 'scopeSpans', resourcePath, out)) {
      for (const [s, spanPath] of objectsOf(scope, 'spans', scopePath, out)) {
        const record = span(s, spanPath, service, out);
        if (record) out.add(record, spanPath, SPAN_FIELDS);
        yield;
      }
    }
  }
}
