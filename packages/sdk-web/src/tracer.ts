import { createTracerIn, type Tracer, type TracerOptions, type TracerRuntime } from '@svc/sdk-core';
import { createExporter } from './exporter';
import { syncScope } from './scope';

// A page is a device in the ingest format's terms (logs' `source`).
const webRuntime: TracerRuntime = { scope: syncScope, exporter: createExporter, logSource: 'device' };

/**
 * Spans for one page or app. Sampling is the Node SDK's, by trace id alone, so a page and the
 * services it calls keep or drop a trace together; an error span is reported even when its trace
 * is dropped. The active span follows synchronous code only (see `withSpan`).
 */
export function createTracer(options: TracerOptions): Tracer {
  return createTracerIn(webRuntime, options);
}

/** Runs `fn` with `span` active: for requests made after an `await` inside a span. */
export function withSpan<T>(span: { context: Parameters<typeof syncScope.run>[0] }, fn: () => T): T {
  return syncScope.run(span.context, fn);
}
