import { MCP_SCOPE } from '@svc/auth';
import type Provider from 'oidc-provider';
import type { IdentityContext } from '../context';
import { findOAuthToken } from './oauth-tokens';

export type OAuthIntrospection =
  | { active: false; reason: string }
  | {
      active: true;
      token_id: string;
      user_id: string | null;
      org_id: string | null;
      project_id: string | null;
      scopes: string[];
      expires_at: string;
      capabilities: string[];
      /** The resource the token was issued for: the gateway checks that it is its own. */
      audience: string;
    };

/**
 * An access token of the authorization server, answered as a pasted token is: its grant's tokens
 * row gives the project, person and capabilities (read fresh: a revocation counts at once), and the
 * token must be for the gateway's resource with scope mcp:read. It expires with the earlier of the
 * access token and the row.
 */
export async function introspectOAuthToken(
  ctx: IdentityContext,
  provider: Provider,
  resource: string,
  token: string,
): Promise<OAuthIntrospection> {
  const access = await provider.AccessToken.find(token);
  if (!access?.grantId) return { active: false, reason: 'unknown' };
  const audience = [access.aud].flat();
  if (audience.length !== 1 || audience[0] !== resource) return { active: false, reason: 'wrong_resource' };
  if (!access.scopes.has(MCP_SCOPE)) return { active: false, reason: 'scope' };
  const row = await findOAuthToken(ctx.db, access.grantId);
  if (!row) return { active: false, reason: 'unknown' };
  if (row.revoked_at) return { active: false, reason: 'revoked' };
  const now = ctx.clock().getTime();
  if (row.expires_at.getTime() <= now) return { active: false, reason: 'expired' };
  const accessLeftMs = (access.exp ?? 0) * 1000 - Date.now();
  const expiresAt = Math.min(row.expires_at.getTime(), now + accessLeftMs);
  return {
    active: true,
    token_id: row.token_id,
    user_id: row.user_id,
    org_id: row.org_id,
    project_id: row.project_id,
    scopes: row.scopes,
    expires_at: new Date(expiresAt).toISOString(),
    capabilities: row.capabilities,
    audience: resource,
  };
}
