import { MCP_SCOPE } from '@svc/auth';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import { issueToken } from '../../issue-token';
import { consoleToolTokenBody } from '../../schemas';
import { liveSessionProject } from './session-project';

/**
 * How long the assistant's token lives: one conversation turn (a model's answer and its tool
 * calls) takes seconds to a minute or two; a token that leaks from a turn is dead minutes later.
 */
export const ASSISTANT_TOKEN_SECONDS = 600;

/** The name its calls are audited under: the audit pages show who (the person) and through what. */
export const ASSISTANT_TOKEN_NAME = 'console assistant';

/**
 * POST /internal/v1/console-sessions/assistant-token: the console's assistant is an MCP client of
 * the gateway, calling tools for the signed-in person on the chosen project. Only the console
 * service can ask (internal secret). The token reads only (mcp:read), only through the gateway
 * it is for (its audience), for minutes (never past the session), and is revoked at logout with
 * the console's other tokens of the session; the MCP page does not list it.
 */
export function addAssistantTokenRoute(router: Router, ctx: IdentityContext, resource: string): void {
  router.post('/v1/console-sessions/assistant-token', async (req, res) => {
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
        name: ASSISTANT_TOKEN_NAME,
        days: 1,
        expiresInSeconds: Math.max(1, Math.min(ASSISTANT_TOKEN_SECONDS, secondsLeft)),
        scopes: [MCP_SCOPE],
        consoleSession: sessionHash,
        audience: resource,
      },
      now,
    );
    res.status(201).json({ token: issued.token, token_id: issued.token_id, expires_at: issued.expires_at });
  });
}
