import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { EXPORTER_HEADER, parseTraceparent, type Tracer, templatePath } from '@svc/sdk-core';
import { runInSpan } from './context';

/** What express adds to a request once a route matched (read structurally: no express import). */
interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

function operationOf(
  req: RoutedRequest,
  route: ((req: IncomingMessage) => string | undefined) | undefined,
): string {
  const method = req.method ?? 'GET';
  const routed = typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
  return `${method} ${route?.(req) ?? routed ?? templatePath(req.url ?? '/')}`;
}

export interface ServerTracingOptions {
  /** The route of a request (e.g. `/v1/orders/:id`); default: express's matched route, else the path with ids templated. */
  route?: (req: IncomingMessage) => string | undefined;
  /** Requests not to trace (health checks, say). Exports of an SDK are never traced. */
  ignore?: (req: IncomingMessage) => boolean;
}

/**
 * A server span around one request: it continues the caller's trace when a valid `traceparent`
 * came in (the caller's span is its parent), else starts a root. Code handling the request runs
 * with the span active. Status error on a 5xx answer or a connection closed before the answer.
 */
function traceRequest(
  tracer: Tracer,
  req: RoutedRequest,
  res: ServerResponse,
  handle: () => void,
  options: ServerTracingOptions,
): void {
  if (req.headers[EXPORTER_HEADER] !== undefined || options.ignore?.(req)) {
    handle();
    return;
  }
  // The operation is known when the answer is (the route matched by then): named at the end.
  // No traceparent: a root, whatever span was active when the server started listening.
  const span = tracer.startSpan(req.method ?? 'GET', {
    kind: 'server',
    parent: parseTraceparent(req.headers.traceparent) ?? null,
  });
  span.setAttribute('http.method', req.method ?? 'GET');
  // One listener: a response emits 'close' exactly once, when it is done, answered ('finish'
  // before it) or not. `on`, not `once`: no wrapper to make and remove on every request.
  res.on('close', () => {
    const aborted = !res.writableFinished;
    span.setOperation(operationOf(req, options.route));
    span.setAttribute('http.status_code', res.statusCode);
    if (aborted) span.setAttribute('http.aborted', true);
    span.setStatus(aborted || res.statusCode >= 500 ? 'error' : 'ok');
    span.end();
  });
  runInSpan(span.context, handle);
}

/** Express (or connect) middleware: `app.use(expressTracing(tracer))` before the routes. */
export function expressTracing(
  tracer: Tracer,
  options: ServerTracingOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, res, next) => traceRequest(tracer, req, res, () => next(), options);
}

/** A node:http request listener with a server span around every request. */
export function traceRequests(
  tracer: Tracer,
  listener: RequestListener,
  options: ServerTracingOptions = {},
): RequestListener {
  return (req, res) => traceRequest(tracer, req, res, () => listener(req, res), options);
}
