import { SeverityNumber } from '@opentelemetry/api-logs';
import {
  JsonLogsSerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { logsFromOtlp } from './otlp-logs';
import { metricsFromOtlp } from './otlp-metrics';
import { logsRequest, metricsRequest, traceRequest } from './otlp-proto-schemas';
import { OtlpOutput } from './otlp-shape';
import { spansFromOtlp } from './otlp-traces';
import { decodeProtobuf, ProtobufError } from './protobuf-reader';

// OpenTelemetry's own serializers write the same telemetry as OTLP JSON and as protobuf; decoded
// by our reader, the protobuf must map to exactly the records the JSON maps to.

const resource = resourceFromAttributes({ 'service.name': 'billing', 'service.version': '4.2.0' });
const json = (bytes: Uint8Array | undefined) => JSON.parse(Buffer.from(bytes!).toString('utf8'));
/** The records a mapping makes of a request (it must find no problem). */
function mapped(map: (body: unknown, out: OtlpOutput) => Generator<void>, body: unknown): unknown[] {
  const out = new OtlpOutput();
  for (const _ of map(body, out));
  out.check();
  return out.records;
}

describe('OTLP protobuf decodes to what OTLP JSON says', () => {
  it('traces: ids, kinds, status, times, every attribute type', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('test');
    tracer.startActiveSpan('POST /v1/invoices', { kind: 1 }, (root) => {
      const child = tracer.startSpan('db.insert', {
        kind: 2,
        attributes: {
          'db.rows': 3,
          'db.big': 2 ** 40,
          ratio: 0.25,
          ok: true,
          tags: ['a', 'b'],
          'enduser.id': 'usr_1',
        },
      });
      child.setStatus({ code: 2, message: 'disk full' });
      child.end();
      root.end();
    });
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    const fromJson = mapped(spansFromOtlp, json(JsonTraceSerializer.serializeRequest(spans)));
    const fromProto = mapped(
      spansFromOtlp,
      await decodeProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!, traceRequest),
    );
    expect(fromProto).toEqual(fromJson);
    expect(fromProto).toContainEqual(
      expect.objectContaining({
        operation: 'db.insert',
        kind: 'client',
        status: 'error',
        service: 'billing',
        user_id: 'usr_1',
        attributes: expect.objectContaining({
          'db.rows': '3',
          'db.big': String(2 ** 40),
          ratio: '0.25',
          ok: 'true',
        }),
      }),
    );
  });

  it('logs: severity, body, trace ids, attributes', async () => {
    const exporter = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({
      resource,
      processors: [new SimpleLogRecordProcessor({ exporter })],
    });
    const logger = provider.getLogger('test');
    logger.emit({
      severityNumber: SeverityNumber.WARN,
      severityText: 'WARN',
      body: 'disk almost full',
      attributes: { free_mb: 12 },
    });
    logger.emit({ severityNumber: SeverityNumber.ERROR, body: { code: 7, reason: 'gone' } });
    const records = exporter.getFinishedLogRecords();
    const fromJson = mapped(logsFromOtlp, json(JsonLogsSerializer.serializeRequest(records)));
    const fromProto = mapped(
      logsFromOtlp,
      await decodeProtobuf(ProtobufLogsSerializer.serializeRequest(records)!, logsRequest),
    );
    expect(fromProto).toEqual(fromJson);
    expect(fromProto).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'disk almost full' }),
      expect.objectContaining({ level: 'ERROR', message: JSON.stringify({ code: '7', reason: 'gone' }) }),
    ]);
  });

  it('metrics: gauges, sums, histograms (count, sum, min, max)', async () => {
    class Reader extends MetricReader {
      constructor() {
        super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
      }
      protected async onForceFlush() {}
      protected async onShutdown() {}
    }
    const reader = new Reader();
    const provider = new MeterProvider({ resource, readers: [reader] });
    const meter = provider.getMeter('test');
    meter.createCounter('orders', { unit: '{order}' }).add(5, { region: 'eu' });
    meter.createGauge('memory_mb', { unit: 'MB' }).record(412.5);
    const latency = meter.createHistogram('latency', { unit: 'ms' });
    for (const ms of [12, 30, 95]) latency.record(ms);
    const { resourceMetrics } = await reader.collect();
    const fromJson = mapped(metricsFromOtlp, json(JsonMetricsSerializer.serializeRequest(resourceMetrics)));
    const fromProto = mapped(
      metricsFromOtlp,
      await decodeProtobuf(ProtobufMetricsSerializer.serializeRequest(resourceMetrics)!, metricsRequest),
    );
    expect(fromProto).toEqual(fromJson);
    const byName = Object.fromEntries(
      (fromProto as { name: string; value: number }[]).map((m) => [m.name, m.value]),
    );
    expect(byName).toEqual({
      orders: 5,
      memory_mb: 412.5,
      'latency.count': 3,
      'latency.sum': 137,
      'latency.min': 12,
      'latency.max': 95,
    });
    await provider.shutdown();
  });
});

describe('decodeProtobuf', () => {
  it('refuses what is not a message of the schema, never returning part of it', async () => {
    const bytes = ProtobufTraceSerializer.serializeRequest([])!;
    expect(await decodeProtobuf(bytes, traceRequest)).toEqual({});
    // Field 1 announced as 100 bytes long, 2 present.
    await expect(decodeProtobuf(Uint8Array.from([0x0a, 100, 1, 2]), traceRequest)).rejects.toThrow(
      ProtobufError,
    );
    // Field 1 with the wrong wire type (varint instead of length-delimited).
    await expect(decodeProtobuf(Uint8Array.from([0x08, 1]), traceRequest)).rejects.toThrow(ProtobufError);
    // A varint that never ends.
    await expect(decodeProtobuf(Uint8Array.from([0x0a, 0xff, 0xff]), traceRequest)).rejects.toThrow(
      ProtobufError,
    );
    // Unknown fields are skipped.
    expect(await decodeProtobuf(Uint8Array.from([0x78, 5]), traceRequest)).toEqual({});
  });
});
