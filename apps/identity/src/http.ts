import { createHash, timingSafeEqual } from 'node:crypto';
import { type Logger, parseInput, UnauthorizedError } from '@svc/tool-kit';
import { httpErrorHandler } from '@svc/tool-server/http-errors';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { z } from 'zod';

/** Strict zod at the boundary: anything else is a 400 naming each field and what it expects. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return parseInput(schema, value, 'this request');
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** X-Internal-Secret on every /internal call, compared in constant time (digests hide the length). */
/** A page of a list read with one row more than `limit`: that row only says whether there are more. */
export function pageOf<T>(rows: T[], limit: number): { items: T[]; limit: number; has_more: boolean } {
  return { items: rows.slice(0, limit), limit, has_more: rows.length > limit };
}

export function requireInternalSecret(secret: string): RequestHandler {
  const expected = digest(secret);
  return (req, _res, next) => {
    const given = req.get('x-internal-secret');
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      next(new UnauthorizedError(given === undefined ? 'missing_internal_secret' : 'wrong_internal_secret'));
      return;
    }
    next();
  };
}

/**
 * The console's "re-verify first" answer, 403 `{"error":"step_up_required"}` (docs/internal-api.md).
 * Console-only and not an error of the tool pipeline, so it is not in the @svc/tool-kit codes.
 */
export class StepUpRequiredError extends Error {
  override readonly name = 'StepUpRequiredError';
  constructor() {
    super('Re-verify with POST /console/v1/step-up first (valid for 5 minutes).');
  }
}

export function identityErrorHandler(logger: Logger): ErrorRequestHandler {
  const base = httpErrorHandler(logger);
  return (err, req, res, next) => {
    if (err instanceof StepUpRequiredError) {
      res.status(403).json({ error: 'step_up_required', message: err.message });
      return;
    }
    base(err, req, res, next);
  };
}
