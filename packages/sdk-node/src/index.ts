export { type ActiveSpan, activeSpan, runInSpan, traceFields } from './context';
export { type IngestTarget, parseDsn } from './dsn';
export {
  createExporter,
  EXPORTER_HEADER,
  type ExportError,
  type Exporter,
  type ExporterOptions,
  type ExporterStats,
} from './exporter';
export { instrumentFetch } from './fetch';
export { instrumentHttp } from './http-client';
export { expressTracing, type ServerTracingOptions, templatePath, traceRequests } from './http-server';
export { newSpanId, newTraceId } from './ids';
export type { LogRecord, SpanRecord } from './records';
export { checkSampleRate, fnv1a32, isSampled } from './sampling';
export { formatTraceparent, parseTraceparent, type SpanContext } from './traceparent';
export { createTracer, type Span, type StartSpanOptions, type Tracer, type TracerOptions } from './tracer';
