import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '@svc/tool-kit';
import type { RequestHandler } from 'express';

/** Service-to-service calls carry X-Internal-Secret; compared in constant time (over digests). */
export function requireInternalSecret(secret: string): RequestHandler {
  const expected = createHash('sha256').update(secret).digest();
  return (req, _res, next) => {
    const given = req.get('x-internal-secret') ?? '';
    const digest = createHash('sha256').update(given).digest();
    if (given !== '' && timingSafeEqual(digest, expected)) next();
    else next(new UnauthorizedError('internal secret missing or wrong'));
  };
}

/** A project id as internal paths carry it (`/internal/v1/projects/{project_id}/...`). */
export const INTERNAL_PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
