import { formatTraceparent, type Span, type Tracer } from '@svc/sdk-core';

export interface ClientSpan {
  span: Span;
  /** The header the outbound request carries: the callee's server span becomes this span's child. */
  traceparent: string;
}

/**
 * A client span for an outbound call about to be made (child of the active span) and the
 * `traceparent` pointing at it, for calls that do not go through @svc/backend-client (which makes
 * its own). The caller sets its status and ends it.
 */
export function startClientSpan(tracer: Tracer, operation: string, peer: string): ClientSpan {
  const span = tracer.startSpan(operation, { kind: 'client', attributes: { 'peer.service': peer } });
  return { span, traceparent: formatTraceparent(span.context) };
}
