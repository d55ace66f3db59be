import { createHash } from 'node:crypto';
import { NotFoundError, StepUpRequiredError, UnauthorizedError } from '@svc/errors';
import type { RequestHandler, Response } from 'express';
import type { IdentityContext } from '../../context';
import { getProject, type Project } from '../../store/projects';
import { findLiveSession } from '../../store/sessions';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const STEP_UP_WINDOW_MS = 5 * 60 * 1000;

/** The signed-in person a console request comes from (set by `requireSession`). */
export interface ConsoleSession {
  sha256: string;
  userId: string;
  orgId: string;
  stepUpUntil: Date | null;
}

/** Sessions are stored by the hash of their token, never the token. */
export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export const sessionOf = (res: Response) => res.locals.session as ConsoleSession;

/** A live session's bearer token, else a 401; the session is `sessionOf(res)` after it. */
export function requireSession(ctx: IdentityContext): RequestHandler {
  return async (req, res, next) => {
    const [scheme, value, ...rest] = (req.get('authorization') ?? '').trim().split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer' || !value || rest.length > 0) {
      throw new UnauthorizedError('missing_session');
    }
    const hash = sha256(value);
    const session = await findLiveSession(ctx.db, hash, ctx.clock());
    if (!session) throw new UnauthorizedError('invalid_session');
    res.locals.session = {
      sha256: hash,
      userId: session.user_id,
      orgId: session.org_id,
      stepUpUntil: session.step_up_until,
    } satisfies ConsoleSession;
    next();
  };
}

/** What the session-bound routes share: who is signed in, the step-up rule, the org's projects. */
export interface SessionHelpers {
  sessionOf: (res: Response) => ConsoleSession;
  /** 403 step_up_required unless the session re-verified within the last 5 minutes. */
  requireStepUp: (session: ConsoleSession) => void;
  /** The session's org's project, else 404: projects of other orgs are indistinguishable from unknown ones. */
  projectOf: (session: ConsoleSession, projectId: string) => Promise<Project>;
}

export function sessionHelpers(ctx: IdentityContext): SessionHelpers {
  return {
    sessionOf,
    requireStepUp(session) {
      if (!session.stepUpUntil || session.stepUpUntil.getTime() <= ctx.clock().getTime()) {
        throw new StepUpRequiredError();
      }
    },
    async projectOf(session, projectId) {
      const project = await getProject(ctx.db, projectId);
      if (!project || project.org_id !== session.orgId) throw new NotFoundError('Unknown project.');
      return project;
    },
  };
}
