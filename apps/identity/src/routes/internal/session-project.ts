import { createHash } from 'node:crypto';
import { NotFoundError } from '@svc/errors';
import type { IdentityContext } from '../../context';
import { getProject } from '../../store/projects';
import { findLiveSession } from '../../store/sessions';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * The live console session a token is asked for, and the project it asks for, which must be its
 * org's (with the session's hash, which ties a token to it); otherwise a 404 that does not say which (no session, or another org's project).
 */
export async function liveSessionProject(ctx: IdentityContext, sessionToken: string, projectId: string) {
  const now = ctx.clock();
  const sessionHash = sha256(sessionToken);
  const session = await findLiveSession(ctx.db, sessionHash, now);
  const project = session && (await getProject(ctx.db, projectId));
  if (!session || !project || project.org_id !== session.org_id)
    throw new NotFoundError('No live console session for this project.');
  /** Seconds the session has left (a token never outlives it). */
  const secondsLeft = Math.floor((session.expires_at.getTime() - now.getTime()) / 1000);
  return { session, sessionHash, project, now, secondsLeft };
}
