// OTLP/HTTP JSON traces (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) mapped
// to our span records (docs/ingest.md, "OTLP"); the records then go through the same validation
// as /ingest/v1/batch. Ids are hex in OTLP JSON; enums may be numbers or their names.

import { attributesOf, first, hasAny, type KeyValue, nanos, SESSION_KEYS, USER_KEYS } from './otlp-values';

interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  traceState?: string;
  name?: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: KeyValue[];
  status?: { code?: number | string };
}

interface OtlpTraces {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const KINDS = ['internal', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const KIND_NAMES: Record<string, (typeof KINDS)[number]> = {
  SPAN_KIND_UNSPECIFIED: 'internal',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};

function kindOf(kind: number | string | undefined): (typeof KINDS)[number] {
  if (typeof kind === 'number') return KINDS[kind] ?? 'internal';
  return (kind && KIND_NAMES[kind]) || 'internal';
}

function statusOf(code: number | string | undefined): 'ok' | 'error' | 'unset' {
  if (code === 2 || code === 'STATUS_CODE_ERROR') return 'error';
  if (code === 1 || code === 'STATUS_CODE_OK') return 'ok';
  return 'unset';
}

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
/**
 * Our span records for an OTLP traces request: the resource's `service.name` is the service, the
 * span name the operation, the kind and status mapped, the duration from start and end, the
 * sampling rate from the span's attributes or its tracestate. Events and links are not kept. A span that cannot be mapped is passed on as it is, so that validation
 * names its problem.
 */
export function spansFromOtlp(body: unknown): unknown[] {
  const request = (body ?? {}) as OtlpTraces;
  const out: unknown[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = resource['service.name'];
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const attributes = attributesOf(span.attributes);
        const start = nanos(span.startTimeUnixNano);
        const end = nanos(span.endTimeUnixNano);
        const user = first(attributes, USER_KEYS);
        const session = first(attributes, SESSION_KEYS);
        const rate = rateOf(attributes, span.traceState);
        // One object literal with every key (undefined where absent): conditional spreads would
        // make each record a slow dictionary object, and validation 3x slower per span.
        out.push({
          trace_id: span.traceId?.toLowerCase(),
          span_id: span.spanId?.toLowerCase(),
          parent_span_id: span.parentSpanId ? span.parentSpanId.toLowerCase() : undefined,
          kind: kindOf(span.kind),
          status: statusOf(span.status?.code),
          operation: span.name,
          service: service || undefined,
          start_time: start === undefined ? undefined : Number(start / 1_000_000n),
          duration_ms:
            start === undefined || end === undefined || end < start ? undefined : Number(end - start) / 1e6,
          attributes: hasAny(attributes) ? attributes : undefined,
          user_id: user || undefined,
          session_id: session || undefined,
          sample_rate: rate,
        });
      }
    }
  }
  return out;
}
