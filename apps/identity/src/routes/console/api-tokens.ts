import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { issueToken } from '../../issue-token';
import { consoleTokenBody } from '../../schemas';
import type { SessionHelpers } from './session';

const API_SCOPE = 'api:read';

/**
 * POST /v1/api-tokens: general API tokens, with no project and scope api:read, so MCP refuses them.
 * Also a credential, hence the same step-up rule as MCP tokens.
 */
export function addApiTokenRoute(router: Router, ctx: IdentityContext, s: SessionHelpers): void {
  router.post('/v1/api-tokens', async (req, res) => {
    const session = s.sessionOf(res);
    s.requireStepUp(session);
    const body = parseRequest(consoleTokenBody, req.body);
    const issued = await issueToken(
      ctx.db,
      { projectId: null, userId: session.userId, name: body.name, days: body.days, scopes: [API_SCOPE] },
      ctx.clock(),
    );
    res.status(201).json({
      token: issued.token,
      token_id: issued.token_id,
      scope: API_SCOPE,
      expires_at: issued.expires_at,
    });
  });
}
