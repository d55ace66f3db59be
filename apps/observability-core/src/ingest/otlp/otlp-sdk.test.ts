import { SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { type LoopbackCore, startLoopbackCore } from '../../testing/loopback-core';

// A Node service instrumented with the stock OpenTelemetry SDK (no code of ours), exporting with
// its OTLP/HTTP JSON exporter to the core; the trace is read back with trace.get as one tree.

const key = { keyId: 'otel_key', projectId: 'otel_p', secret: 'otel-secret-0123456789' };

let core: LoopbackCore;
let url: string;

beforeAll(async () => {
  core = await startLoopbackCore({ name: 'core_otel_sdk', key, internalSecret: 'otel-sdk-internal-0123' });
  url = core.url;
});
afterAll(async () => {
  await core?.close();
});

it('takes the spans of @opentelemetry/sdk-node and shows them as one tree', async () => {
  const sdk = new NodeSDK({
    serviceName: 'billing',
    traceExporter: new OTLPTraceExporter({
      url: `${url}/v1/traces`,
      headers: { 'x-svc-ingest-key': `${key.keyId}:${key.secret}` },
      // Past the 10 s default: a loaded CI machine answers slowly, and a timed-out export is dropped silently.
      timeoutMillis: 120_000,
    }),
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer('billing-test');
  let traceId = '';
  tracer.startActiveSpan('POST /v1/invoices', (root) => {
    traceId = root.spanContext().traceId;
    tracer.startActiveSpan('invoice.render', (child) => {
      child.setAttribute('pages', 3);
      child.end();
    });
    tracer.startActiveSpan('pdf.store', (child) => {
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'bucket full' });
      child.end();
    });
    root.end();
  });
  await sdk.shutdown();

  const got = await core.tool<{
    span_count: number;
    error: boolean;
    services: string[];
    spans: { operation: string; orphan: boolean; children: { operation: string; status: string }[] }[];
  }>('trace.get', { trace_id: traceId });
  expect(got).toMatchObject({ span_count: 3, error: true, services: ['billing'] });
  expect(got.spans).toHaveLength(1);
  expect(got.spans[0]).toMatchObject({ operation: 'POST /v1/invoices', orphan: false });
  // Both children may start in the same millisecond: their order is then by span id.
  expect(got.spans[0]!.children.map((c) => [c.operation, c.status]).sort()).toEqual([
    ['invoice.render', 'unset'],
    ['pdf.store', 'error'],
  ]);
});
