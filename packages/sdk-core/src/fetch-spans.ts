import { answered, startClientSpan } from './client-span';
import { EXPORTER_HEADER } from './exporter-types';
import { type HttpUrl, parseHttpUrl } from './http-url';
import { formatTraceparent } from './traceparent';
import type { Tracer } from './tracer';

type Fetch = typeof globalThis.fetch;

export interface FetchTracingRules {
  /** Base for relative URLs (a page's location); Node's fetch takes absolute URLs only. */
  base?: string;
  /** Whether a request to `url` may carry `traceparent` (browsers: only where CORS allows it). */
  propagate(url: URL): boolean;
}

/** The request's URL (resolved by the platform) and its parts (read by us: see parseHttpUrl). */
function urlOf(input: Parameters<Fetch>[0], base: string | undefined): [URL, HttpUrl] | undefined {
  try {
    const url = new URL(input instanceof Request ? input.url : String(input), base);
    const parts = parseHttpUrl(url.href);
    return parts && [url, parts];
  } catch {
    return undefined;
  }
}

/**
 * `original` with a client span around every request, a child of the active span, and
 * `traceparent` pointing at it where `rules.propagate` allows, so the service called continues the
 * trace (outgoing requests carry the context). Requests to the SDK's own ingest endpoint are left alone. A 5xx answer
 * or a network error marks the span as an error; the caller sees fetch exactly as before.
 */
export function tracedFetch(original: Fetch, tracer: Tracer, rules: FetchTracingRules): Fetch {
  const ingestOrigin = parseHttpUrl(tracer.exporter.endpoint)?.origin;
  return async (input, init) => {
    const [url, parts] = urlOf(input, rules.base) ?? [];
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!url || !parts || parts.origin === ingestOrigin || headers.has(EXPORTER_HEADER))
      return original(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const span = startClientSpan(tracer, method, parts);
    // An explicit traceparent from the app wins: it knows which span the call belongs to.
    const inject = !headers.has('traceparent') && rules.propagate(url);
    if (inject) headers.set('traceparent', formatTraceparent(span.context));
    try {
      const res = await (inject
        ? original(input instanceof Request ? new Request(input, { headers }) : input, { ...init, headers })
        : original(input, init));
      answered(span, res.status);
      return res;
    } catch (err) {
      span.recordError(err);
      throw err;
    } finally {
      span.end();
    }
  };
}
