// The Node SDK: what @svc/sdk-core shares with browsers, plus what only Node has (AsyncLocalStorage
// context, node:crypto signing, server middleware, node:http instrumentation).
export {
  type ActiveSpan,
  checkSampleRate,
  EXPORTER_HEADER,
  type ExportError,
  type Exporter,
  type ExporterOptions,
  type ExporterStats,
  fnv1a32,
  formatTraceparent,
  type IngestTarget,
  isSampled,
  type LogRecord,
  newSpanId,
  newTraceId,
  parseDsn,
  parseTraceparent,
  type Span,
  type SpanContext,
  type SpanRecord,
  type StartSpanOptions,
  type Tracer,
  type TracerOptions,
  templatePath,
} from '@svc/sdk-core';
export { activeSpan, asyncScope, runInSpan, traceFields } from './context';
export { createExporter } from './exporter';
export { instrumentFetch } from './fetch';
export { instrumentHttp } from './http-client';
export { expressTracing, type ServerTracingOptions, traceRequests } from './http-server';
export { nodeSend } from './send';
export { createTracer } from './tracer';
