// OTLP/HTTP JSON traces (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) mapped
// to our span records (docs/ingest.md, "OTLP"); the records then go through the same validation
// as /ingest/v1/batch. Ids are hex in OTLP JSON; enums may be numbers or their names.

import { attributesOf, first, type KeyValue, nanos, SESSION_KEYS, USER_KEYS } from './otlp-values';

interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
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
 * Our span records for an OTLP traces request: the resource's `service.name` is the service, the
 * span name the operation, the kind and status mapped, the duration from start and end. Events
 * and links are not kept. A span that cannot be mapped is passed on as it is, so that validation
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
        const rate = first(attributes, RATE_KEYS);
        out.push({
          trace_id: span.traceId?.toLowerCase(),
          span_id: span.spanId?.toLowerCase(),
          ...(span.parentSpanId ? { parent_span_id: span.parentSpanId.toLowerCase() } : {}),
          kind: kindOf(span.kind),
          status: statusOf(span.status?.code),
          operation: span.name,
          ...(service ? { service } : {}),
          start_time: start === undefined ? undefined : new Date(Number(start / 1_000_000n)).toISOString(),
          duration_ms:
            start === undefined || end === undefined || end < start ? undefined : Number(end - start) / 1e6,
          ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
          ...(user ? { user_id: user } : {}),
          ...(session ? { session_id: session } : {}),
          ...(rate !== undefined && Number.isFinite(Number(rate)) ? { sample_rate: Number(rate) } : {}),
        });
      }
    }
  }
  return out;
}
