// OTLP/HTTP JSON traces (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) mapped
// to our span records (docs/ingest.md, "OTLP"); the records then go through the same validation
// as /ingest/v1/batch. Ids are hex in OTLP JSON; enums may be numbers or their names.

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
type KeyValue = { key?: string; value?: AnyValue };

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

function text(value: AnyValue | undefined): string | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return String(value.boolValue);
  if (value.intValue !== undefined) return String(value.intValue);
  if (value.doubleValue !== undefined) return String(value.doubleValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return JSON.stringify((value.arrayValue.values ?? []).map(text));
  if (value.kvlistValue) return JSON.stringify(attributesOf(value.kvlistValue.values));
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) {
    const value = text(kv.value);
    if (kv.key && value !== undefined) out[kv.key] = value;
  }
  return out;
}

function kindOf(kind: number | string | undefined): (typeof KINDS)[number] {
  if (typeof kind === 'number') return KINDS[kind] ?? 'internal';
  return (kind && KIND_NAMES[kind]) || 'internal';
}

function statusOf(code: number | string | undefined): 'ok' | 'error' | 'unset' {
  if (code === 2 || code === 'STATUS_CODE_ERROR') return 'error';
  if (code === 1 || code === 'STATUS_CODE_OK') return 'ok';
  return 'unset';
}

/** Nanoseconds since the epoch (a decimal string in OTLP JSON) as a BigInt, or undefined. */
function nanos(value: string | number | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  try {
    return BigInt(value);
  } catch {
    return undefined;
  }
}

/** Attributes that carry meaning of their own: the user, the session and the sampling rate. */
const USER_KEYS = ['enduser.id', 'user.id'];
const SESSION_KEYS = ['session.id'];
const RATE_KEYS = ['sampling.rate', 'sample_rate'];
const first = (attrs: Record<string, string>, keys: string[]) => keys.map((k) => attrs[k]).find((v) => v);

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
