// OTLP/HTTP traces (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding; JSON as sent,
// or protobuf decoded to the same shape) mapped to our span records (docs/ingest.md, "OTLP"); the
// records then go through the same validation as /ingest/v1/batch. Ids are hex; enums may be
// numbers or their names. Fields of the wrong type are problems named by their path (otlp-shape.ts).

import { BodyPath } from './json-path';
import {
  enumAt,
  int64At,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  optionalIdAt,
  requestObject,
  stringAt,
} from './otlp-shape';
import {
  attributesAt,
  first,
  hasAny,
  msOf,
  resourceAttributesAt,
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

/** The span's rate: its attribute when it states one, else its tracestate's. */
function rateOf(attributes: Record<string, string>, traceState: string | undefined): number | undefined {
  const stated = Number(first(attributes, RATE_KEYS) ?? Number.NaN);
  return Number.isFinite(stated) ? stated : rateFromTraceState(traceState);
}

function span(
  s: OtlpObject,
  path: BodyPath,
  service: string | undefined,
  out: OtlpOutput,
): Record<string, unknown> | undefined {
  const before = out.problemCount;
  const attributes = attributesAt(s, 'attributes', path, out);
  const start = int64At(s, 'startTimeUnixNano', path, out);
  const end = int64At(s, 'endTimeUnixNano', path, out);
  if (start !== undefined && end !== undefined && end < start)
    out.problem(path.child('endTimeUnixNano'), 'must not be before startTimeUnixNano');
  const kind = enumAt(s, 'kind', KIND_NAMES, path, out);
  const status = objectAt(s, 'status', path, out);
  const code = status ? enumAt(status, 'code', STATUS_NAMES, path.child('status'), out) : 0;
  const traceId = stringAt(s, 'traceId', path, out);
  const spanId = stringAt(s, 'spanId', path, out);
  const parent = optionalIdAt(s, 'parentSpanId', path, out);
  const traceState = stringAt(s, 'traceState', path, out);
  const name = stringAt(s, 'name', path, out);
  if (out.problemCount > before) return undefined;
  const user = first(attributes, USER_KEYS);
  const session = first(attributes, SESSION_KEYS);
  // One object literal with every key (undefined where absent): conditional spreads would make
  // each record a slow dictionary object, and validation 3x slower per span.
  return {
    trace_id: traceId?.toLowerCase(),
    span_id: spanId?.toLowerCase(),
    parent_span_id: parent,
    kind: KINDS[kind!],
    status: STATUSES[code!],
    operation: name,
    service: service || undefined,
    start_time: msOf(start),
    duration_ms: start === undefined || end === undefined ? undefined : Number(end - start) / 1e6,
    attributes: hasAny(attributes) ? attributes : undefined,
    user_id: user || undefined,
    session_id: session || undefined,
    sample_rate: rateOf(attributes, traceState),
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
    const service = resourceAttributesAt(resourceSpans, resourcePath, out)['service.name'];
    for (const [scope, scopePath] of objectsOf(resourceSpans, 'scopeSpans', resourcePath, out)) {
      for (const [s, spanPath] of objectsOf(scope, 'spans', scopePath, out)) {
        const record = span(s, spanPath, service, out);
        if (record) out.add(record, spanPath);
        yield;
      }
    }
  }
}
