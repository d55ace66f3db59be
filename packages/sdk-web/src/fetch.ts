import { type Tracer, tracedFetch } from '@svc/sdk-core';
import { type PropagateTo, propagationRule } from './propagation';

/**
 * Wraps the page's `fetch`: a client span around every request (a child of the active span), and
 * `traceparent` on requests to the page's origin and to `propagateTo`. Requests to the ingest
 * endpoint are left alone. Returns the function that puts the original back.
 */
export function instrumentFetch(tracer: Tracer, options: { propagateTo?: PropagateTo } = {}): () => void {
  const original = globalThis.fetch;
  const wrapped = tracedFetch(original.bind(globalThis), tracer, {
    base: location.href,
    propagate: propagationRule(options.propagateTo),
  });
  globalThis.fetch = wrapped;
  return () => {
    if (globalThis.fetch === wrapped) globalThis.fetch = original;
  };
}
