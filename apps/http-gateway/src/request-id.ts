import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's X-Request-Id when it is harmless to log and echo, else makes one. */
export function requestIdMiddleware(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && SAFE_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    next();
  };
}

export function requestIdOf(_req: Request, res: Response): string {
  return String(res.locals.requestId);
}
