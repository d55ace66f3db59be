import { metrics, trace } from '@opentelemetry/api';
import { logs, SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as OTLPJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OTLPProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { type LoopbackCore, startLoopbackCore } from '../../testing/loopback-core';

// A Node service with the stock OpenTelemetry SDK exporting traces (gzip), logs and metrics as
// OTLP/HTTP protobuf (and its logs as JSON too) to the core; read back with trace.get, log.search and the
// metrics table.

const KEY = { keyId: 'otel_proto_key', projectId: 'otel_proto', secret: 'otel-proto-0123456789' };
const headers = { 'x-svc-ingest-key': `${KEY.keyId}:${KEY.secret}` };

let core: LoopbackCore;
let url: string;

beforeAll(async () => {
  core = await startLoopbackCore({
    name: 'core_otel_proto',
    key: KEY,
    internalSecret: 'otel-proto-internal-0123',
  });
  url = core.url;
});
afterAll(async () => {
  await core?.close();
});

it('takes traces, logs and metrics of @opentelemetry/sdk-node over OTLP/HTTP protobuf', async () => {
  // A loaded CI machine can take longer than the exporters' 10 s default to answer; an export that
  // times out is dropped silently, which read as "the core lost the logs".
  const timeoutMillis = 120_000;
  const sdk = new NodeSDK({
    serviceName: 'ledger',
    // Compressed, as collectors send by default.
    traceExporter: new OTLPTraceExporter({
      url: `${url}/v1/traces`,
      headers,
      compression: 'gzip' as never,
      timeoutMillis,
    }),
    logRecordProcessors: [
      new SimpleLogRecordProcessor({
        exporter: new OTLPProtoLogExporter({ url: `${url}/v1/logs`, headers, timeoutMillis }),
      }),
      new SimpleLogRecordProcessor({
        exporter: new OTLPJsonLogExporter({ url: `${url}/v1/logs`, headers, timeoutMillis }),
      }),
    ],
    metricReader: new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url: `${url}/v1/metrics`, headers, timeoutMillis }),
      exportIntervalMillis: 60_000,
    }),
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer('ledger-test');
  const logger = logs.getLogger('ledger-test');
  const postings = metrics.getMeter('ledger-test').createCounter('ledger.postings', { unit: '{posting}' });
  let traceId = '';
  tracer.startActiveSpan('POST /v1/postings', (root) => {
    traceId = root.spanContext().traceId;
    tracer.startActiveSpan('ledger.balance', (child) => {
      logger.emit({ severityNumber: SeverityNumber.WARN, body: 'balance below zero for acct 42' });
      postings.add(3, { currency: 'EUR' });
      child.end();
    });
    root.end();
  });
  await sdk.shutdown();

  const got = await core.tool<{
    span_count: number;
    services: string[];
    spans: { operation: string; children: { operation: string }[] }[];
  }>('trace.get', { trace_id: traceId });
  expect(got).toMatchObject({ span_count: 2, services: ['ledger'] });
  expect(got.spans.map((s) => [s.operation, s.children.map((c) => c.operation)])).toEqual([
    ['POST /v1/postings', ['ledger.balance']],
  ]);

  // Once as protobuf, once as JSON: the same record in either encoding.
  const { items } = await core.tool<{ items: { message: string; level: string; trace_id: string | null }[] }>(
    'log.search',
    { search: 'below zero for acct 42' },
  );
  expect(items).toEqual([
    expect.objectContaining({ level: 'WARN', trace_id: traceId }),
    expect.objectContaining({ level: 'WARN', trace_id: traceId }),
  ]);

  const rows = await core.ch.query<{ name: string; value: number; unit: string; currency: string }>(
    `SELECT name, value, unit, attributes['currency'] AS currency FROM metrics
     WHERE project_id = {p:String} AND name = 'ledger.postings'`,
    { p: KEY.projectId },
  );
  expect(rows).toEqual([{ name: 'ledger.postings', value: 3, unit: '{posting}', currency: 'EUR' }]);
});
