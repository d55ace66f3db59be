import { createTracerIn, type Tracer, type TracerOptions, type TracerRuntime } from '@svc/sdk-core';
import { createExporter } from './exporter';
import { noteThrown, syncScope } from './scope';

// A page is a device in the ingest format's terms (logs' `source`).
const webRuntime: TracerRuntime = { scope: syncScope, exporter: createExporter, logSource: 'device' };

/**
 * Spans for one page or app. Sampling is the Node SDK's, by trace id alone, so a page and the
 * services it calls keep or drop a trace together; an error span is reported even when its trace
 * is dropped. The active span follows synchronous code only (see `withSpan`).
 */
export function createTracer(options: TracerOptions): Tracer {
  const tracer = createTracerIn(webRuntime, options);
  const { inSpan } = tracer;
  // A span's async work that rejects surfaces as an unhandled rejection after the span ended: its
  // error is noted with the span, as the scope notes a synchronous throw, for the crash report.
  tracer.inSpan = (operation, fn, start) =>
    inSpan(
      operation,
      (span) => {
        const result = fn(span);
        if (result instanceof Promise) result.catch((error: unknown) => noteThrown(error, span.context));
        return result;
      },
      start,
    );
  return tracer;
}

/** Runs `fn` with `span` active: for requests made after an `await` inside a span. */
export function withSpan<T>(span: { context: Parameters<typeof syncScope.run>[0] }, fn: () => T): T {
  return syncScope.run(span.context, fn);
}
