import { MCP_SCOPE } from '@svc/auth';
import { NotFoundError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { revokeEverywhere } from '../../invalidation/revoke-everywhere';
import { issueToken } from '../../issue-token';
import { consoleTokenBody } from '../../schemas';
import { getToken, listConsoleTokens } from '../../store/tokens';
import type { SessionHelpers } from './session';

/** A project's MCP tokens: made (after step-up), listed, revoked everywhere. */
export function addMcpTokenRoutes(router: Router, ctx: IdentityContext, s: SessionHelpers): void {
  router.post('/v1/projects/:project_id/mcp-tokens', async (req, res) => {
    const session = s.sessionOf(res);
    const project = await s.projectOf(session, req.params.project_id);
    s.requireStepUp(session);
    const body = parseRequest(consoleTokenBody, req.body);
    const issued = await issueToken(
      ctx.db,
      {
        projectId: project.project_id,
        userId: session.userId,
        name: body.name,
        days: body.days,
        scopes: [MCP_SCOPE],
      },
      ctx.clock(),
    );
    res.status(201).json({
      token: issued.token,
      token_id: issued.token_id,
      scope: MCP_SCOPE,
      expires_at: issued.expires_at,
    });
  });

  router.get('/v1/projects/:project_id/mcp-tokens', async (req, res) => {
    const project = await s.projectOf(s.sessionOf(res), req.params.project_id);
    res.json({ items: await listConsoleTokens(ctx.db, project.project_id, MCP_SCOPE) });
  });

  router.delete('/v1/mcp-tokens/:token_id', async (req, res) => {
    const token = await getToken(ctx.db, req.params.token_id);
    if (!token || token.org_id !== s.sessionOf(res).orgId) throw new NotFoundError('Unknown token.');
    const revokedAt = await revokeEverywhere(ctx, token.token_id);
    res.json({ token_id: token.token_id, revoked_at: revokedAt!.toISOString() });
  });
}
