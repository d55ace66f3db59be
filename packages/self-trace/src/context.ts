import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActiveSpan, SpanScope } from '@svc/sdk-core';

// The active span of the stack's own services, one store for the process: the server middleware
// sets it, client spans, the core's query spans and the log mixin read it, and async work started
// inside a span stays in it. In the standalone every service runs in this one process; a request
// is served inside its own server span whichever service serves it.
//
// This is @svc/sdk-node's context.ts; the stack cannot load sdk-node itself, whose tests depend on
// the core (a workspace dependency cycle; docs/decisions.md, "The stack traces itself").
const storage = new AsyncLocalStorage<ActiveSpan>();

/** The span the calling code runs in, if any. */
export function activeSpan(): ActiveSpan | undefined {
  return storage.getStore();
}

/** Runs `fn` with `span` active, for `fn` and everything it starts asynchronously. */
export function runInSpan<T>(span: ActiveSpan, fn: () => T): T {
  return storage.run(span, fn);
}

export const nodeScope: SpanScope = { active: activeSpan, run: runInSpan };

/**
 * `{trace_id, span_id}` inside a span, `{}` outside: the pino mixin of a service that traces itself
 * (`createLogger({ mixin: traceFields })`), so its log lines name the span they were written in.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = storage.getStore();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
