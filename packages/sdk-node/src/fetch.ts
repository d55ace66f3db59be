import { type Tracer, tracedFetch } from '@svc/sdk-core';

/**
 * Wraps `globalThis.fetch` (undici): every outbound request gets a client span, a child of the
 * active span, and carries `traceparent` pointing at it, so the service it calls continues the
 * trace (outgoing requests carry the context). Requests to the SDK's own ingest endpoint are left alone. A 5xx answer
 * or a network error marks the span as an error; the app sees fetch exactly as before. Returns
 * the function that puts the original back.
 */
export function instrumentFetch(tracer: Tracer): () => void {
  const original = globalThis.fetch;
  // A server's outbound calls go to its own backends: each may carry the trace.
  const wrapped = tracedFetch(original, tracer, { propagate: () => true });
  globalThis.fetch = wrapped;
  return () => {
    if (globalThis.fetch === wrapped) globalThis.fetch = original;
  };
}
