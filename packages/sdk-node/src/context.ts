import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActiveSpan, SpanScope } from '@svc/sdk-core';

// One store for the process: every instrumentation (server middleware, outbound calls, the log
// mixin) reads the same active span, and async work started inside a span stays in it.
const storage = new AsyncLocalStorage<ActiveSpan>();

/** The span the calling code runs in, if any. */
export function activeSpan(): ActiveSpan | undefined {
  return storage.getStore();
}

/** Runs `fn` with `span` active, for `fn` and everything it starts asynchronously. */
export function runInSpan<T>(span: ActiveSpan, fn: () => T): T {
  return storage.run(span, fn);
}

/** Node's scope: the active span follows async work. */
export const asyncScope: SpanScope = { active: activeSpan, run: runInSpan };

/**
 * The trace fields a log line written now should carry: `{trace_id, span_id}` inside a span, `{}`
 * outside. Usable as a pino mixin (`pino({ mixin: traceFields })`) or spread into any record.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = storage.getStore();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
