import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { getOrg } from '../../store/orgs';
import { listOrgProjects } from '../../store/projects';
import { getUser } from '../../store/users';
import { sessionOf } from './session';

/** GET /v1/me: who is signed in, and the projects they may open (their org's). */
export function addMeRoute(router: Router, ctx: IdentityContext): void {
  router.get('/v1/me', async (_req, res) => {
    const session = sessionOf(res);
    const [user, org, projects] = await Promise.all([
      getUser(ctx.db, session.userId),
      getOrg(ctx.db, session.orgId),
      listOrgProjects(ctx.db, session.orgId),
    ]);
    res.json({
      user_id: session.userId,
      email: user?.email ?? null,
      org_id: session.orgId,
      org_name: org?.name ?? null,
      projects: projects.map((p) => ({ project_id: p.project_id, name: p.name })),
      step_up_until: session.stepUpUntil?.toISOString() ?? null,
    });
  });
}
