// The Web SDK: what @svc/sdk-core shares with Node, plus what only pages have (fetch and
// XMLHttpRequest spans, the page's errors as crash reports, Web Crypto signing, keepalive export, a
// synchronous active span).
export {
  checkSampleRate,
  type ExportError,
  type Exporter,
  type ExporterOptions,
  type ExporterStats,
  fnv1a32,
  formatTraceparent,
  isSampled,
  newSpanId,
  newTraceId,
  parseTraceparent,
  type Span,
  type SpanContext,
  type StartSpanOptions,
  type Tracer,
  type TracerOptions,
} from '@svc/sdk-core';
export { createExporter } from './exporter';
export { instrumentFetch } from './fetch';
export { captureError, initTracing, type WebTracing, type WebTracingOptions } from './init';
export type { PropagateTo } from './propagation';
export { traceHeaders } from './trace-headers';
export { createTracer, withSpan } from './tracer';
export { instrumentXhr } from './xhr';
