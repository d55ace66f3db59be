import { checkOAuthAccessTokenFormat, checkTokenFormat, hashToken, tokenFingerprint } from '@svc/auth';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import type { OAuthIntrospection } from '../../oauth/introspect';
import { introspectBody } from '../../schemas';
import { findTokenByHash } from '../../store/tokens';

/** POST /v1/introspect: what a token may do, read fresh each time (a gateway's cache keeps it). */
export function addIntrospectRoute(
  router: Router,
  ctx: IdentityContext,
  introspectOAuth: (token: string) => Promise<OAuthIntrospection>,
): void {
  const introspections = ctx.metrics.counter('identity_introspections_total', 'Token introspections', [
    'result',
  ]);
  router.post('/v1/introspect', async (req, res) => {
    const { token } = parseRequest(introspectBody, req.body);
    const refuse = (reason: string) => {
      introspections.inc({ result: reason });
      // A security event: the fingerprint lets operators correlate attempts; the token never appears.
      ctx.logger.warn(
        { event: 'introspection_failed', reason, token_fp: tokenFingerprint(token) },
        'token refused',
      );
      res.json({ active: false });
    };
    // An MCP client's OAuth access token answers exactly as a pasted token bound to its project.
    if (checkOAuthAccessTokenFormat(token)) {
      const { reason, ...answer } = { reason: undefined, ...(await introspectOAuth(token)) };
      if (!answer.active) return refuse(`oauth_${reason}`);
      introspections.inc({ result: 'active' });
      res.json(answer);
      return;
    }
    if (!checkTokenFormat(token)) return refuse('malformed');
    // Read fresh every time (no cache), so a revocation is seen by the very next introspection.
    const row = await findTokenByHash(ctx.db, hashToken(token));
    if (!row) return refuse('unknown');
    if (row.revoked_at) return refuse('revoked');
    if (row.expires_at.getTime() <= ctx.clock().getTime()) return refuse('expired');
    introspections.inc({ result: 'active' });
    res.json({
      active: true,
      token_id: row.token_id,
      user_id: row.user_id,
      org_id: row.org_id,
      project_id: row.project_id,
      scopes: row.scopes,
      expires_at: row.expires_at.toISOString(),
      capabilities: row.capabilities,
      // The console's own token of a session (console-sessions/tool-token): only the console
      // service can have one, so the gateway audits its calls as the console's. Left out for every
      // other token, so a gateway that does not know the field still reads their answers.
      ...(row.console ? { console: true } : {}),
      // The console assistant's tokens name the gateway resource they are for (RFC 8707).
      ...(row.audience ? { audience: row.audience } : {}),
    });
  });
}
