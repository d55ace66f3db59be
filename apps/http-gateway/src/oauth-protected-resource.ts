import { MCP_SCOPE } from '@svc/auth';
import { toHttpError, UnauthorizedError } from '@svc/tool-kit';
import express, { type ErrorRequestHandler, type Router } from 'express';

/** The gateway as an OAuth protected resource (RFC 9728), for MCP clients that sign in. */
export interface ProtectedResourceOptions {
  /** The MCP endpoint as clients reach it: the only resource identity issues tokens for. */
  resource: string;
  /** identity's authorization server (its issuer). */
  authorizationServer: string;
}

const DEFAULT_PUBLIC_URL = 'http://localhost:8092';
const DEFAULT_ISSUER = 'http://localhost:8081/oauth';

/** The resource and issuer from the gateway's config: its public URL plus /mcp (as identity derives it). */
export function oauthResourceOf(config: {
  publicUrl: string | undefined;
  oauthIssuer?: string | undefined;
}): ProtectedResourceOptions {
  return {
    resource: `${(config.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '')}/mcp`,
    authorizationServer: config.oauthIssuer ?? DEFAULT_ISSUER,
  };
}

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** Where a client finds the metadata of `resource`: the path-aware address (RFC 9728, section 3.1). */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${PROTECTED_RESOURCE_PATH}${path}`;
}

/**
 * `/.well-known/oauth-protected-resource` and its path-aware form for the MCP endpoint: which
 * authorization server issues tokens for this resource, and the one scope. Public and cacheable;
 * open to every origin (browser clients such as the Inspector read it before signing in).
 */
export function protectedResourceRouter(options: ProtectedResourceOptions): Router {
  const router = express.Router();
  const metadata = {
    resource: options.resource,
    authorization_servers: [options.authorizationServer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Observability MCP server',
  };
  const paths = [PROTECTED_RESOURCE_PATH, new URL(resourceMetadataUrl(options.resource)).pathname];
  // The preflight a browser sends first when the page adds a header (the Inspector's
  // MCP-Protocol-Version): any origin, GET only, no credentials to protect.
  router.options([...new Set(paths)], (req, res) => {
    res.set('Access-Control-Allow-Origin', '*');
    res.set('Access-Control-Allow-Methods', 'GET');
    const asked = req.get('access-control-request-headers');
    if (asked) res.set('Access-Control-Allow-Headers', asked);
    res.set('Access-Control-Max-Age', '3600');
    res.status(204).end();
  });
  router.get([...new Set(paths)], (_req, res) => {
    res.set('Access-Control-Allow-Origin', '*');
    res.set('Cache-Control', 'public, max-age=300');
    res.json(metadata);
  });
  return router;
}

/**
 * Every 401 of the gateway says how to get a token (RFC 6750 section 3, RFC 9728 section 5.1):
 * `WWW-Authenticate: Bearer resource_metadata="..."`, with `error="invalid_token"` when a
 * credential was presented and refused (none when the request had no Authorization header).
 * The answer is otherwise the error handler's (the same mapping): only the challenge differs.
 */
export function bearerChallenge(options: ProtectedResourceOptions): ErrorRequestHandler {
  const metadataUrl = resourceMetadataUrl(options.resource);
  return (err, req, res, next) => {
    if (!(err instanceof UnauthorizedError) || res.headersSent) {
      next(err);
      return;
    }
    const presented = (req.get('authorization') ?? '').trim() !== '';
    const params = [
      `resource_metadata="${metadataUrl}"`,
      `scope="${MCP_SCOPE}"`,
      ...(presented ? ['error="invalid_token"'] : []),
    ];
    const answer = toHttpError(err);
    res
      .status(answer.status)
      .set({ ...answer.headers, 'WWW-Authenticate': `Bearer ${params.join(', ')}` })
      .json(answer.body);
  };
}
