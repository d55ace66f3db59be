import { MCP_SCOPE } from '@svc/auth';
import { toHttpError, UnauthorizedError } from '@svc/errors';
import express, { type ErrorRequestHandler, type Router } from 'express';
import { isLoopbackBind } from './origin-guard';

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

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why the resource URL clients are told about cannot be this gateway, or undefined. Compared only
 * when the gateway listens on loopback and the URL names loopback: then nothing (no container port
 * mapping) can sit between them, so another port sends clients to another server, and MCP clients
 * that sign in with OAuth, which check the resource against the URL they connected to, refuse it.
 * A warning rather than a refusal to start: a proxy on the same machine may forward that port here.
 */
export function resourcePortMismatch(config: {
  host: string;
  port: number;
  publicUrl: string | undefined;
}): string | undefined {
  if (config.port === 0 || !isLoopbackBind(config.host)) return undefined;
  const { resource } = oauthResourceOf(config);
  const url = new URL(resource);
  if (!LOOPBACK_NAMES.has(url.hostname)) return undefined;
  const told = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (told === config.port) return undefined;
  const named = config.publicUrl
    ? `SVC_PUBLIC_URL (${config.publicUrl})`
    : `SVC_PUBLIC_URL (unset: ${DEFAULT_PUBLIC_URL})`;
  return (
    `${named} names port ${told}, but the gateway listens on ${config.host}:${config.port}: MCP clients ` +
    `signing in with OAuth are told the resource is ${resource} and refuse this server. Set ` +
    `SVC_PUBLIC_URL=http://localhost:${config.port} (identity's SVC_PUBLIC_URL too), unless a proxy ` +
    `on this machine forwards port ${told} here.`
  );
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
