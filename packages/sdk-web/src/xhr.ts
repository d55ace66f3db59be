import { type Tracer, traceXhr, type XhrPrototype } from '@svc/sdk-core';
import { type PropagateTo, propagationRule } from './propagation';

/**
 * Patches XMLHttpRequest (and so every library built on it): a client span from `send` to
 * `loadend`, a child of the active span, with `traceparent` on requests to the page's origin and
 * to `propagateTo`. Status error on a 5xx answer, a network error, a timeout or an abort. Requests
 * to the ingest endpoint are left alone. Returns the function that puts the originals back.
 */
export function instrumentXhr(tracer: Tracer, options: { propagateTo?: PropagateTo } = {}): () => void {
  const propagate = propagationRule(options.propagateTo);
  return traceXhr(XMLHttpRequest.prototype as unknown as XhrPrototype, tracer, {
    base: () => location.href,
    propagate: (href) => propagate(new URL(href)),
  });
}
