import { EXPORTER_HEADER, type Tracer, tracedFetch } from '@svc/sdk-core';
import { insideFetch, type NetworkHooks } from './network';

type Fetch = typeof globalThis.fetch;

function requestOf(input: Parameters<Fetch>[0], init: Parameters<Fetch>[1]): { url: string; method: string } {
  const isRequest = typeof Request !== 'undefined' && input instanceof Request;
  const url = isRequest ? input.url : String(input);
  return { url, method: (init?.method ?? (isRequest ? input.method : 'GET')).toUpperCase() };
}

function hasExporterHeader(init: Parameters<Fetch>[1]): boolean {
  try {
    return new Headers(init?.headers).has(EXPORTER_HEADER);
  } catch {
    return false;
  }
}

/**
 * Wraps the global `fetch`: a client span around every request of the app (a child of the active
 * span) with `traceparent` where `hooks.propagate` allows, and a network breadcrumb. The SDK's own
 * requests are left alone. Returns the function that puts the original back.
 */
export function instrumentFetch(tracer: Tracer, hooks: NetworkHooks): () => void {
  const original = globalThis.fetch;
  const marked = ((input, init) => insideFetch(() => original(input, init))) as Fetch;
  const traced = tracedFetch(marked, tracer, { propagate: (url) => hooks.propagate(url.href) });
  const wrapped = (async (input, init) => {
    const { url, method } = requestOf(input, init);
    if (hooks.isOwn(url) || hasExporterHeader(init)) return marked(input, init);
    const started = Date.now();
    try {
      const res = await traced(input, init);
      hooks.seen({ method, url, status: res.status, durationMs: Date.now() - started });
      return res;
    } catch (err) {
      hooks.seen({ method, url, failure: 'error', durationMs: Date.now() - started });
      throw err;
    }
  }) as Fetch;
  globalThis.fetch = wrapped;
  return () => {
    if (globalThis.fetch === wrapped) globalThis.fetch = original;
  };
}
