import {
  type Logger,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceError,
  toHttpError,
  UserInputError,
} from '@svc/tool-kit';
import type { ErrorRequestHandler, RequestHandler, Router } from 'express';

// Express middleware that answers with the error hierarchy, shared by every service of the stack
// (gateway, core, identity). The mapping itself is @svc/tool-kit's toHttpError.

/** Body parsing problems expressed in the error hierarchy. */
function fromBodyParser(err: unknown): ServiceError | undefined {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') return new PayloadTooLargeError('The request body is too large.');
  if (e?.type === 'entity.parse.failed') return new UserInputError('The request body is not valid JSON.');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new UserInputError('Unsupported request body encoding.');
  }
  // Any other refusal of the body parser (a corrupt gzip, deflate or br body, an aborted upload):
  // the caller's request, not our failure.
  const status = e?.status ?? (err as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof ServiceError)) {
    return new UserInputError('The request body could not be read: check its Content-Encoding.');
  }
  return undefined;
}

/** The one place HTTP error answers are written. */
export function httpErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const mapped = fromBodyParser(err) ?? err;
    const answer = toHttpError(mapped);
    if (answer.status >= 500) logger.error({ err, path: req.path }, 'request failed');
    if (res.headersSent) return;
    res.status(answer.status).set(answer.headers).json(answer.body);
  };
}

export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new NotFoundError('Not found.'));
}

/**
 * 405 with `Allow` for every method a known path does not serve. Call after the path's own
 * routes are registered on `router`; HEAD follows GET as express does.
 */
export function allowOnly(router: Pick<Router, 'all'>, path: string, allow: readonly string[]): void {
  const allowed = new Set(allow.map((m) => m.toUpperCase()));
  if (allowed.has('GET')) allowed.add('HEAD');
  const refuse: RequestHandler = (req, _res, next) => {
    if (allowed.has(req.method)) return next();
    next(new MethodNotAllowedError([...allowed].filter((m) => m !== 'HEAD')));
  };
  router.all(path, refuse);
}
