import type { HttpUrl } from './http-url';
import { templatePath } from './template-path';
import type { Span, Tracer } from './tracer';

/**
 * The client span of an outgoing request (fetch, XMLHttpRequest), a child of the active span:
 * named by method, host and templated path, with the URL without its query (it may hold tokens).
 */
export function startClientSpan(tracer: Tracer, method: string, url: HttpUrl): Span {
  const span = tracer.startSpan(`${method} ${url.host}${templatePath(url.pathname)}`, { kind: 'client' });
  span.setAttribute('http.method', method);
  span.setAttribute('http.url', `${url.origin}${url.pathname}`);
  return span;
}

/** The answer's status on the span: a 5xx is an error. */
export function answered(span: Span, status: number): void {
  span.setAttribute('http.status_code', status);
  span.setStatus(status >= 500 ? 'error' : 'ok');
}
