import type { IncomingMessage, ServerResponse } from 'node:http';
import { EXPORTER_HEADER, parseTraceparent, type Tracer, templatePath } from '@svc/sdk-core';
import { runInSpan } from './context';

/** Probes and scrapes: every few seconds, and nobody asks why one was slow. */
const UNTRACED_PATHS = new Set(['/healthz', '/metrics']);

/** What express adds to a request once a route matched (read structurally: no express import). */
interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

export interface SelfTraceMiddlewareOptions {
  /** The route of a request (e.g. with the tool's name); default: express's matched route. */
  route?: (req: IncomingMessage) => string | undefined;
  /** More paths not to trace, exactly (keep-alives: a root trace a second buries the others). */
  untraced?: readonly string[];
  /** More requests not to trace (long-lived streams: a span as long as the stream says nothing). */
  ignore?: (req: IncomingMessage) => boolean;
}

/** The name of the middleware in an express app's router stack (tests tell an app with it by it). */
export const SELF_TRACE_MIDDLEWARE = 'selfTrace';

/**
 * A server span per incoming request, as @svc/sdk-node's expressTracing makes it (context.ts says why
 * it is not that one): it continues the caller's `traceparent` (the caller's span is its parent),
 * names the operation by the route once one matched, and is an error on a 5xx or a connection
 * closed before the answer. Not traced: health checks, metrics, and the exports of the stack's own
 * tracers (EXPORTER_HEADER), whose spans would otherwise be exported forever. Install it first, and
 * only with a tracer: without one there is no middleware at all.
 */
export function selfTraceMiddleware(
  tracer: Tracer,
  options: SelfTraceMiddlewareOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const untraced = new Set([...UNTRACED_PATHS, ...(options.untraced ?? [])]);
  return function selfTrace(req: RoutedRequest, res, next) {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.headers[EXPORTER_HEADER] !== undefined || untraced.has(path) || options.ignore?.(req)) {
      next();
      return;
    }
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(`${method} ${templatePath(path)}`, {
      kind: 'server',
      parent: parseTraceparent(req.headers.traceparent),
    });
    span.setAttribute('http.method', method);
    let over = false;
    const done = (aborted: boolean) => {
      if (over) return;
      over = true;
      const routed =
        typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
      const route = options.route?.(req) ?? routed;
      if (route) span.setOperation(`${method} ${route}`);
      span.setAttribute('http.status_code', res.statusCode);
      if (aborted) span.setAttribute('http.aborted', true);
      span.setStatus(aborted || res.statusCode >= 500 ? 'error' : 'ok');
      span.end();
    };
    res.once('finish', () => done(false));
    res.once('close', () => done(!res.writableFinished));
    runInSpan(span.context, () => next());
  };
}
