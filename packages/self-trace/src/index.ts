// The stack traced by itself (README, "The stack traces itself"): each service's config.ts adds
// `selfTraceEnv`, its wiring makes the tracer with `createSelfTracer` (undefined when off) and
// passes it through its deps; apps install `selfTraceMiddleware`, loggers take `traceFields` as
// their pino mixin, calls outside @svc/backend-client take `startClientSpan`.
export type { Exporter, Span, SpanRecord, Tracer } from '@svc/sdk-core';
export { activeSpan, runInSpan, traceFields } from '@svc/sdk-node';
export { type ClientSpan, startClientSpan } from './client-span';
export { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from './env';
export { SELF_TRACE_MIDDLEWARE, type SelfTraceMiddlewareOptions, selfTraceMiddleware } from './middleware';
export {
  createSelfTracer,
  internalIngestTransport,
  type SelfTraceLogger,
  type SelfTracerOptions,
  type SelfTraceService,
} from './tracer';
