import {
  type ActiveSpan,
  createSyncScope,
  formatTraceparent,
  type SpanContext,
  type SpanScope,
} from '@svc/sdk-core';

// React Native has no AsyncLocalStorage: as in a web page, the active span follows synchronous
// code (createSyncScope).
export const syncScope: SpanScope = createSyncScope();

/** Runs `fn` with `span` active: for requests made after an `await` inside a span. */
export function withSpan<T>(span: { context: ActiveSpan }, fn: () => T): T {
  return syncScope.run(span.context, fn);
}

/**
 * The headers that carry the trace on a transport the SDK does not instrument (a WebSocket
 * handshake, a GraphQL client with its own transport, a native module's requests):
 * `{traceparent}` for `span` or else the active span, `{}` outside any span.
 */
export function traceHeaders(span?: { context: SpanContext }): { traceparent?: string } {
  const context = span?.context ?? syncScope.active();
  return context ? { traceparent: formatTraceparent(context) } : {};
}
