import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError, UserInputError } from '@svc/errors';
import { ACTOR_HEADER, type CallActor, type Capability, CONTROLLED_CAPABILITIES } from '@svc/tool-kit';
import type { RequestHandler } from 'express';
import { z } from 'zod';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Checks an X-Internal-Secret value against the shared secret in constant time (over digests, which
 * also hide the length). Answers why it is refused (for logs and metrics: the client's 401 says the
 * same either way), or undefined when it matches.
 */
export function internalSecretCheck(secret: string): (given: string | undefined) => string | undefined {
  const expected = digest(secret);
  return (given) => {
    if (given === undefined) return 'missing_internal_secret';
    return timingSafeEqual(digest(given), expected) ? undefined : 'wrong_internal_secret';
  };
}

/** Service-to-service calls carry X-Internal-Secret: anything else is a 401. */
export function requireInternalSecret(secret: string): RequestHandler {
  const refusal = internalSecretCheck(secret);
  return (req, _res, next) => {
    const reason = refusal(req.get('x-internal-secret'));
    next(reason === undefined ? undefined : new UnauthorizedError(reason));
  };
}

/** A project id as internal paths carry it (`/internal/v1/projects/{project_id}/...`). */
export const INTERNAL_PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const callActor = z.strictObject({
  token_id: z.string().max(200).nullable(),
  user_id: z.string().max(200).nullable(),
  org_id: z.string().max(200).nullable().optional(),
  transport: z.enum(['mcp', 'rest', 'stdio', 'console']),
  capabilities: z.array(z.string().max(40)).max(20).optional(),
});

/**
 * Who the gateway or stdio server calls for (X-Svc-Actor, CallActor). Backends that audit a read
 * or act on the caller's behalf need one, so a call without a valid header is refused rather than
 * recorded as nobody. Capabilities this build does not know are dropped.
 */
export function callActorOf(header: (name: string) => string | undefined): CallActor {
  const raw = header(ACTOR_HEADER);
  let parsed: unknown;
  try {
    parsed = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const result = callActor.safeParse(parsed);
  if (!result.success)
    throw new UserInputError(`A valid ${ACTOR_HEADER} header naming the caller is required.`);
  const { capabilities, ...actor } = result.data;
  return capabilities === undefined
    ? actor
    : {
        ...actor,
        capabilities: capabilities.filter((c): c is Capability =>
          CONTROLLED_CAPABILITIES.includes(c as Capability),
        ),
      };
}
