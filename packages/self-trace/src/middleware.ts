import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tracer } from '@svc/sdk-core';
import { expressTracing } from '@svc/sdk-node';

/** Probes and scrapes: every few seconds, and nobody asks why one was slow. */
const UNTRACED_PATHS = new Set(['/healthz', '/metrics']);

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
 * The SDK's server middleware (@svc/sdk-node expressTracing: a server span per request continuing
 * the caller's traceparent, named by the route, an error on a 5xx or an aborted answer), with what
 * the stack does not trace: health checks, metrics, and `untraced`/`ignore`. The exports of the
 * stack's own tracers are never traced (the SDK skips them), or their spans would be exported
 * forever. Install it first, and only with a tracer: without one there is no middleware at all.
 */
export function selfTraceMiddleware(
  tracer: Tracer,
  options: SelfTraceMiddlewareOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  const untraced = new Set([...UNTRACED_PATHS, ...(options.untraced ?? [])]);
  const traced = expressTracing(tracer, {
    ...(options.route ? { route: options.route } : {}),
    ignore: (req) => untraced.has((req.url ?? '/').split('?')[0]!) || options.ignore?.(req) === true,
  });
  return function selfTrace(req, res, next) {
    traced(req, res, next);
  };
}
