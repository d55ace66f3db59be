import { type ActiveSpan, formatTraceparent, type SpanContext, type SpanScope } from '@svc/sdk-core';

// React Native has no AsyncLocalStorage: as in a web page, the active span is a slot set while
// synchronous code runs in it. A request started before the first `await` in `inSpan`'s callback is
// a child of that span; one started after an `await` is not, unless the code passes the span on
// (`withSpan`).
let current: ActiveSpan | undefined;

export const syncScope: SpanScope = {
  active: () => current,
  run(span, fn) {
    const outer = current;
    current = span;
    try {
      return fn();
    } finally {
      current = outer;
    }
  },
};

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
