import { EXPORTER_HEADER } from './exporter';
import { templatePath } from './http-server';
import { formatTraceparent } from './traceparent';
import type { Tracer } from './tracer';

type Fetch = typeof globalThis.fetch;

function urlOf(input: Parameters<Fetch>[0]): URL | undefined {
  try {
    return new URL(input instanceof Request ? input.url : String(input));
  } catch {
    return undefined;
  }
}

/**
 * Wraps `globalThis.fetch` (undici): every outbound request gets a client span, a child of the
 * active span, and carries `traceparent` pointing at it, so the service it calls continues the
 * trace (SPEC 2.5 rule 5). Requests to the SDK's own ingest endpoint are left alone. A 5xx answer
 * or a network error marks the span as an error; the app sees fetch exactly as before. Returns
 * the function that puts the original back.
 */
export function instrumentFetch(tracer: Tracer): () => void {
  const original = globalThis.fetch;
  const ingestOrigin = new URL(tracer.exporter.endpoint).origin;
  const wrapped: Fetch = async (input, init) => {
    const url = urlOf(input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!url || url.origin === ingestOrigin || headers.has(EXPORTER_HEADER)) return original(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const span = tracer.startSpan(`${method} ${url.host}${templatePath(url.pathname)}`, { kind: 'client' });
    span.setAttribute('http.method', method);
    span.setAttribute('http.url', `${url.origin}${url.pathname}`);
    // An explicit traceparent from the app wins: it knows which span the call belongs to.
    if (!headers.has('traceparent')) headers.set('traceparent', formatTraceparent(span.context));
    try {
      const res = await original(input instanceof Request ? new Request(input, { headers }) : input, {
        ...init,
        headers,
      });
      span.setAttribute('http.status_code', res.status);
      span.setStatus(res.status >= 500 ? 'error' : 'ok');
      return res;
    } catch (err) {
      span.recordError(err);
      throw err;
    } finally {
      span.end();
    }
  };
  globalThis.fetch = wrapped;
  return () => {
    if (globalThis.fetch === wrapped) globalThis.fetch = original;
  };
}
