import { MCP_SCOPE } from '@svc/auth';
import { NotFoundError } from '@svc/errors';
import type { Request, Response, Router } from 'express';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { z } from 'zod';
import type { IdentityContext } from '../context';
import { parseRequest } from '../http';
import type { Project } from '../store/projects';
import type { AuthorizationServer } from './authorization-server';
import { visibleText } from './display-text';
import { GRANT_TTL_SECONDS } from './oauth-options';
import { insertOAuthToken } from './oauth-tokens';
import { isLoopbackRedirect } from './redirect-policy';

const approveBody = z.strictObject({ project_id: z.string().min(1).max(100) });

export interface ConsentSession {
  userId: string;
  orgId: string;
}

export interface ConsentHelpers<S extends ConsentSession> {
  sessionOf: (res: Response) => S;
  /** 403 step_up_required unless the session re-verified within the last 5 minutes. */
  requireStepUp: (session: S) => void;
  /** The session's org's project, else 404 (another org's project answers like an unknown one). */
  projectOf: (session: S, projectId: string) => Promise<Project>;
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

/** The console's proof of which browser it serves (browser-binding.ts), on every consent call. */
export const CONSENT_BROWSER_HEADER = 'x-svc-oauth-browser';

/**
 * The console's consent page, identity's side (behind the console session): what an authorization
 * request asks, and its end, approved for one project (after step-up) or denied. Either answer is
 * where to send the browser: back to oidc-provider, which redirects to the client with a code or
 * with access_denied. An unknown, expired or finished interaction is a 404 and issues nothing.
 *
 * Each call names the console's browser (CONSENT_BROWSER_HEADER): only the browser that began the
 * sign-in and bound itself may see, approve or deny it. Not yet bound: 409 browser_not_bound with
 * the bind address to send the browser to; bound to another browser: 403 other_browser.
 */
export function addConsentRoutes<S extends ConsentSession>(
  router: Router,
  ctx: IdentityContext,
  server: AuthorizationServer,
  helpers: ConsentHelpers<S>,
): void {
  const { provider, options, binding } = server;
  /** Whether this console browser may act on `uid`: answered here (and false) when it may not. */
  const mayAct = async (req: Request, res: Response, uid: string): Promise<boolean> => {
    const proof = req.get(CONSENT_BROWSER_HEADER);
    const state = await binding.check(uid, proof);
    if (state === 'bound') return true;
    if (state === 'unknown') throw new NotFoundError('Unknown or expired sign-in request.');
    if (state === 'unbound' && proof !== undefined && /^[A-Za-z0-9_-]{43}$/.test(proof)) {
      res.status(409).json({
        error: 'browser_not_bound',
        message: 'Send the browser to bind_url first: it proves it began this sign-in.',
        bind_url: binding.bindUrl(uid, proof),
      });
      return false;
    }
    ctx.logger.warn(
      {
        security_event: 'oauth_consent_other_browser',
        interaction: uid,
        user_id: helpers.sessionOf(res).userId,
      },
      'OAuth consent refused: the sign-in belongs to another browser',
    );
    res.status(403).json({
      error: 'other_browser',
      message: 'This sign-in was started in another browser; only that browser may answer it.',
    });
    return false;
  };
  const pending = async (uid: string) => {
    const interaction = await provider.Interaction.find(uid);
    if (!interaction || interaction.result) throw new NotFoundError('Unknown or expired sign-in request.');
    const client = await provider.Client.find(String(interaction.params.client_id));
    if (!client) throw new NotFoundError('Unknown or expired sign-in request.');
    return { interaction, client };
  };
  // Back to the resume address of the configured issuer: never one built from a request's Host.
  const finish = async (interaction: InstanceType<Provider['Interaction']>, result: InteractionResults) => {
    interaction.result = result;
    await interaction.save(Math.max(1, interaction.exp - epochSeconds()));
    return `${options.issuer}/auth/${encodeURIComponent(interaction.uid)}`;
  };

  router.get('/v1/oauth/interactions/:uid', async (req, res) => {
    const { interaction, client } = await pending(req.params.uid);
    if (!(await mayAct(req, res, req.params.uid))) return;
    const redirectUri = String(interaction.params.redirect_uri);
    const redirectHost = URL.parse(redirectUri)?.host;
    // Written out visibly (display-text.ts): a name cannot pose as another by reordering itself.
    res.json({
      client_id: visibleText(client.clientId),
      client_name: client.clientName ? visibleText(client.clientName) : null,
      redirect_uri: visibleText(redirectUri),
      redirect_host: redirectHost ? visibleText(redirectHost) : null,
      // A loopback callback stays on the person's machine; anything else is a web site to name.
      redirect_local: isLoopbackRedirect(redirectUri),
      resource: options.resource,
      scope: MCP_SCOPE,
      expires_at: new Date(interaction.exp * 1000).toISOString(),
    });
  });

  router.post('/v1/oauth/interactions/:uid/approve', async (req, res) => {
    const session = helpers.sessionOf(res);
    const { project_id } = parseRequest(approveBody, req.body);
    const { interaction, client } = await pending(req.params.uid);
    if (!(await mayAct(req, res, req.params.uid))) return;
    helpers.requireStepUp(session);
    const project = await helpers.projectOf(session, project_id);
    const grant = new provider.Grant({ accountId: session.userId, clientId: client.clientId });
    grant.addResourceScope(options.resource, MCP_SCOPE);
    // mcp:read is also among the server's own scopes (scopes_supported), so the consent names it there too.
    grant.addOIDCScope(MCP_SCOPE);
    const grantId = await grant.save();
    const now = ctx.clock();
    const tokenId = await insertOAuthToken(
      ctx.db,
      {
        grantId,
        clientId: client.clientId,
        name: visibleText(client.clientName ?? client.clientId),
        projectId: project.project_id,
        orgId: project.org_id,
        userId: session.userId,
        expiresAt: new Date(now.getTime() + GRANT_TTL_SECONDS * 1000),
      },
      now,
    );
    ctx.logger.info(
      {
        event: 'oauth_consent_approved',
        client_id: client.clientId,
        user_id: session.userId,
        project_id: project.project_id,
        token_id: tokenId,
      },
      'OAuth consent approved',
    );
    const redirectTo = await finish(interaction, {
      login: { accountId: session.userId },
      consent: { grantId },
    });
    res.json({ redirect_to: redirectTo });
  });

  router.post('/v1/oauth/interactions/:uid/deny', async (req, res) => {
    const session = helpers.sessionOf(res);
    const { interaction, client } = await pending(req.params.uid);
    if (!(await mayAct(req, res, req.params.uid))) return;
    ctx.logger.info(
      { event: 'oauth_consent_denied', client_id: client.clientId, user_id: session.userId },
      'OAuth consent denied',
    );
    const redirectTo = await finish(interaction, {
      error: 'access_denied',
      error_description: 'The person denied access.',
    });
    res.json({ redirect_to: redirectTo });
  });
}
