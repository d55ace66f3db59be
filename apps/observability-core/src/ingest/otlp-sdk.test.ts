import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { type CoreHarness, createCoreHarness, INTERNAL_SECRET, type TestKey } from '../testing/core-harness';

// A Node service instrumented with the stock OpenTelemetry SDK (no code of ours), exporting with
// its OTLP/HTTP JSON exporter to the core; the trace is read back with trace.get as one tree.

const NOW = Date.now();
const key: TestKey = {
  keyId: 'otel_key',
  projectId: 'otel_p',
  secret: 'otel-secret-0123456789',
  active: true,
};

let h: CoreHarness;
let server: Server;
let url: string;

beforeAll(async () => {
  h = await createCoreHarness('core_otel_sdk', NOW, [key]);
  server = await new Promise<Server>((resolve) => {
    const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await h.close();
});

it('takes the spans of @opentelemetry/sdk-node and shows them as one tree', async () => {
  const sdk = new NodeSDK({
    serviceName: 'billing',
    traceExporter: new OTLPTraceExporter({
      url: `${url}/v1/traces`,
      headers: { 'x-svc-ingest-key': `${key.keyId}:${key.secret}` },
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

  const res = await fetch(`${url}/internal/v1/projects/${key.projectId}/tools/trace.get`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-secret': INTERNAL_SECRET },
    body: JSON.stringify({ trace_id: traceId }),
  });
  const got = (await res.json()) as {
    span_count: number;
    error: boolean;
    services: string[];
    spans: { operation: string; orphan: boolean; children: { operation: string; status: string }[] }[];
  };
  expect(got).toMatchObject({ span_count: 3, error: true, services: ['billing'] });
  expect(got.spans).toHaveLength(1);
  expect(got.spans[0]).toMatchObject({ operation: 'POST /v1/invoices', orphan: false });
  // Both children may start in the same millisecond: their order is then by span id.
  expect(got.spans[0]!.children.map((c) => [c.operation, c.status]).sort()).toEqual([
    ['invoice.render', 'unset'],
    ['pdf.store', 'error'],
  ]);
}, 30_000);
