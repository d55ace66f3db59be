import { NotFoundError } from '@svc/errors';
import type { Request, Response } from 'express';
import type { ConsoleDeps } from './console-deps';
import type { PageContext } from './pages/layout';
import { sessionOf } from './session';

/** The project a page is about: `?project=`, else the first of the org's; another org's is 404. */
export function pageContext(deps: Pick<ConsoleDeps, 'config'>, req: Request, res: Response): PageContext {
  const { me, csrf } = sessionOf(res);
  const asked = typeof req.query.project === 'string' ? req.query.project : undefined;
  const projectId = asked ?? me.projects[0]?.project_id;
  if (!projectId || !me.projects.some((p) => p.project_id === projectId)) {
    throw new NotFoundError(
      asked ? 'No such project in your organization.' : 'Your organization has no project yet.',
    );
  }
  return { me, csrf, projectId, gatewayUrl: deps.config.gatewayPublicUrl };
}
