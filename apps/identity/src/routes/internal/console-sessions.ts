import { createHash } from 'node:crypto';
import { MCP_SCOPE } from '@svc/auth';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { issueToken } from '../../issue-token';
import { consoleToolTokenBody, sessionIntrospectBody } from '../../schemas';
import { enabledCapabilities } from '../../store/orgs';
import { getProject } from '../../store/projects';
import { findLiveSession } from '../../store/sessions';
import { addAssistantTokenRoute } from './assistant-token';
import { liveSessionProject } from './session-project';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Console sessions as other services see them: who one is, and the console's own tool token. */
export function addConsoleSessionRoutes(router: Router, ctx: IdentityContext, resource: string): void {
  addAssistantTokenRoute(router, ctx, resource);
  // Services with a console side of their own (recall: trigger a recall, download a file) ask here
  // who a console session is and whether it may act on the project. Another org's project answers
  // like an unknown one.
  router.post('/v1/console-sessions/introspect', async (req, res) => {
    const body = parseRequest(sessionIntrospectBody, req.body);
    const session = await findLiveSession(ctx.db, sha256(body.session_token), ctx.clock());
    if (!session) {
      res.json({ active: false });
      return;
    }
    const project = await getProject(ctx.db, body.project_id);
    res.json({
      active: true,
      user_id: session.user_id,
      org_id: session.org_id,
      project_in_org: project?.org_id === session.org_id,
      capabilities: await enabledCapabilities(ctx.db, session.org_id),
      step_up_until: session.step_up_until?.toISOString() ?? null,
    });
  });

  // The web console runs tools through a gateway like any client (audited, capability-gated), so
  // it needs an MCP token of the signed-in user for the project. Only the console service can ask
  // (internal secret): a session alone never yields a token without the step-up of the MCP page.
  // The token lives as long as the session at most, never leaves the console's server, and is
  // revoked at logout.
  router.post('/v1/console-sessions/tool-token', async (req, res) => {
    const body = parseRequest(consoleToolTokenBody, req.body);
    const { session, sessionHash, project, now, secondsLeft } = await liveSessionProject(
      ctx,
      body.session_token,
      body.project_id,
    );
    const issued = await issueToken(
      ctx.db,
      {
        projectId: project.project_id,
        userId: session.user_id,
        name: 'web console',
        days: 1,
        expiresInSeconds: Math.max(1, secondsLeft),
        scopes: [MCP_SCOPE],
        consoleSession: sessionHash,
      },
      now,
    );
    res.status(201).json({ token: issued.token, token_id: issued.token_id, expires_at: issued.expires_at });
  });
}
