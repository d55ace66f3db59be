import { MCP_SCOPE } from '@svc/auth';
import type Provider from 'oidc-provider';

/**
 * RFC 8414 metadata names only the scope tokens are issued for. oidc-provider always lists
 * `openid`, but nothing here is OpenID Connect (no ID tokens, no userinfo), and clients that ask
 * for every scope listed (the MCP Inspector) would then be refused with invalid_scope by the very
 * registration they made for mcp:read.
 */
export function advertiseMcpScopeOnly(provider: Provider): void {
  provider.use(async (koa, next) => {
    await next();
    if (koa.method !== 'GET' || !koa.path.startsWith('/.well-known/')) return;
    const body = koa.body as { scopes_supported?: string[] } | undefined;
    if (body?.scopes_supported) body.scopes_supported = [MCP_SCOPE];
  });
}
