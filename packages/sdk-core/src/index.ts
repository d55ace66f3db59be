export type { ActiveSpan, SpanScope } from './context';
export { type IngestTarget, parseDsn } from './dsn';
export { createExporter } from './exporter';
export {
  type BatchExporter,
  type BatchRecordType,
  EXPORTER_HEADER,
  type ExportError,
  type Exporter,
  type ExporterOptions,
  type ExporterStats,
  type ExportResponse,
  type ExportSend,
  type ExportTransport,
  IDEMPOTENCY_HEADER,
  type PreparedBatch,
} from './exporter-types';
export { type FetchTracingRules, tracedFetch } from './fetch-spans';
export { type HttpUrl, parseHttpUrl } from './http-url';
export { newSpanId, newTraceId } from './ids';
export {
  type HexHmac,
  type IngestHeaders,
  ingestHeaders,
  ingestSignature,
  ingestSignatureAsync,
  signIngest,
} from './ingest-signing';
export { ingestTransport } from './ingest-transport';
export type { LogRecord, SpanRecord } from './records';
export { checkSampleRate, fnv1a32, isSampled } from './sampling';
export { createSyncScope } from './sync-scope';
export { templatePath } from './template-path';
export { formatTraceparent, parseTraceparent, type SpanContext } from './traceparent';
export {
  createTracerIn,
  type Span,
  type StartSpanOptions,
  type Tracer,
  type TracerOptions,
  type TracerRuntime,
} from './tracer';
export { traceXhr, type Xhr, type XhrPrototype, type XhrTracingRules } from './xhr-spans';
