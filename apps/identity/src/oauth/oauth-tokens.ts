import { generateToken, hashToken, MCP_SCOPE } from '@svc/auth';
import type { Queryable } from '@svc/postgres';
import { newId } from '../ids';
import type { ControlledCapability } from '../store/orgs';
import { insertToken, type TokenRow } from '../store/tokens';

export interface OAuthTokenInput {
  grantId: string;
  clientId: string;
  /** The client's own name (its metadata), shown on the /mcp page. */
  name: string;
  projectId: string;
  orgId: string;
  userId: string;
  expiresAt: Date;
}

/**
 * The tokens row of an approved consent: bound to one project, scope mcp:read, listed and revoked
 * on the /mcp page like a pasted token. Its value is a random one nobody is given (the column
 * wants a hash): the client holds oidc-provider's access and refresh tokens of the grant instead.
 */
export async function insertOAuthToken(q: Queryable, input: OAuthTokenInput, now: Date): Promise<string> {
  const unused = generateToken();
  const row: TokenRow = {
    token_id: newId('tok'),
    name: input.name,
    scopes: [MCP_SCOPE],
    org_id: input.orgId,
    project_id: input.projectId,
    user_id: input.userId,
    last_four: 'oauth',
    created_at: now,
    expires_at: input.expiresAt,
    revoked_at: null,
  };
  await insertToken(q, row, hashToken(unused));
  await q.query('UPDATE tokens SET oauth_grant_id = $2, oauth_client_id = $3 WHERE token_id = $1', [
    row.token_id,
    input.grantId,
    input.clientId,
  ]);
  return row.token_id;
}

/** The tokens row of a grant, with its org's capabilities; read fresh on every introspection. */
export async function findOAuthToken(
  q: Queryable,
  grantId: string,
): Promise<(TokenRow & { oauth_client_id: string; capabilities: ControlledCapability[] }) | undefined> {
  const { rows } = await q.query<
    TokenRow & { oauth_client_id: string; capabilities: ControlledCapability[] | null }
  >(
    `SELECT token_id, name, scopes, org_id, project_id, user_id, last_four, created_at, expires_at,
       revoked_at, oauth_client_id,
       (SELECT array_agg(c.capability ORDER BY c.capability) FROM org_capabilities c
         WHERE c.org_id = tokens.org_id AND c.enabled) AS capabilities
     FROM tokens WHERE oauth_grant_id = $1`,
    [grantId],
  );
  const row = rows[0];
  return row && { ...row, capabilities: row.capabilities ?? [] };
}
