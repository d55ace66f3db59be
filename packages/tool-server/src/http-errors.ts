import {
  type BodyRefusalWording,
  fromBodyParser,
  MethodNotAllowedError,
  NotFoundError,
  toHttpError,
} from '@svc/errors';
import type { Logger } from '@svc/tool-kit';
import type { ErrorRequestHandler, RequestHandler, Router } from 'express';

// Express middleware that answers with the error hierarchy, shared by every service of the stack
// (gateway, core, identity). The mapping itself is @svc/errors' toHttpError.

/** How a JSON API words the body parser's refusals. */
const JSON_BODY_WORDING: BodyRefusalWording = {
  tooLarge: 'The request body is too large.',
  notJson: 'The request body is not valid JSON.',
  unsupportedEncoding: 'Unsupported request body encoding.',
  // Any other refusal of the body parser (a corrupt gzip, deflate or br body, an aborted upload):
  // the caller's request, not our failure.
  unreadable: 'The request body could not be read: check its Content-Encoding.',
};

/** The one place HTTP error answers are written. */
export function httpErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const mapped = fromBodyParser(err, JSON_BODY_WORDING) ?? err;
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
