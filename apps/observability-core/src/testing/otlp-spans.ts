import request from 'supertest';
import type { CoreHarness, TestKey } from './core-harness';

// Test support: spans sent as OpenTelemetry's exporters send them (OTLP/HTTP JSON, one resource
// per service), for tests that store traces through the core's own route.

export interface OtlpTestSpan {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  operation: string;
  service?: string;
  status: 'ok' | 'error' | 'unset';
  start_ms: number;
  duration_ms: number;
  /** Sent as the span's `sampling.rate` attribute. */
  sample_rate?: number;
}

/** Nanoseconds since the epoch as OTLP writes them: a decimal string. */
const ns = (ms: number) => `${BigInt(Math.round(ms * 1000)) * 1000n}`;

/** The spans as one OTLP/JSON traces request body. */
export function otlpTraces(spans: readonly OtlpTestSpan[]) {
  const byService = new Map<string, OtlpTestSpan[]>();
  for (const s of spans) {
    const group = byService.get(s.service ?? '');
    if (group) group.push(s);
    else byService.set(s.service ?? '', [s]);
  }
  return {
    resourceSpans: [...byService].map(([service, group]) => ({
      resource: { attributes: service ? [{ key: 'service.name', value: { stringValue: service } }] : [] },
      scopeSpans: [
        {
          scope: { name: 'core-tests' },
          spans: group.map((s) => ({
            traceId: s.trace_id,
            spanId: s.span_id,
            parentSpanId: s.parent_span_id ?? '',
            name: s.operation,
            kind: 2,
            startTimeUnixNano: ns(s.start_ms),
            endTimeUnixNano: ns(s.start_ms + s.duration_ms),
            attributes:
              s.sample_rate === undefined
                ? []
                : [{ key: 'sampling.rate', value: { doubleValue: s.sample_rate } }],
            status: { code: s.status === 'error' ? 2 : s.status === 'ok' ? 1 : 0 },
          })),
        },
      ],
    })),
  };
}

/** POSTs the spans to /v1/traces in requests of `perRequest` spans, expecting each accepted. */
export async function postOtlpTraces(
  h: CoreHarness,
  key: TestKey,
  spans: readonly OtlpTestSpan[],
  perRequest = 20_000,
): Promise<void> {
  for (let i = 0; i < spans.length; i += perRequest) {
    await request(h.app)
      .post('/v1/traces')
      .set({ 'content-type': 'application/json', 'x-svc-ingest-key': `${key.keyId}:${key.secret}` })
      .send(JSON.stringify(otlpTraces(spans.slice(i, i + perRequest))))
      .expect(200);
  }
}
