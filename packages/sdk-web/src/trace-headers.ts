import { formatTraceparent, type SpanContext } from '@svc/sdk-core';
import { syncScope } from './scope';

/**
 * The headers that carry the trace on a transport that is not fetch or XMLHttpRequest (a
 * WebSocket handshake through a proxy, a GraphQL client with its own transport, a beacon):
 * `{traceparent}` for `span` or else the active span, `{}` outside any span (a made-up context
 * would leave the callee's span pointing at a span nobody reported).
 */
export function traceHeaders(span?: { context: SpanContext }): { traceparent?: string } {
  const context = span?.context ?? syncScope.active();
  return context ? { traceparent: formatTraceparent(context) } : {};
}
