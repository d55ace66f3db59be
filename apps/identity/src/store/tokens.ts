import type { Queryable } from '@svc/postgres';
import type { ControlledCapability } from './orgs';

export interface TokenRow {
  token_id: string;
  name: string;
  scopes: string[];
  org_id: string | null;
  project_id: string | null;
  user_id: string | null;
  last_four: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** The listing shape of docs/internal-api.md: never the token or its hash. */
export interface TokenListItem {
  token_id: string;
  name: string;
  project_id: string | null;
  user_id: string | null;
  scopes: string[];
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_four: string;
}

const COLUMNS =
  'token_id, name, scopes, org_id, project_id, user_id, last_four, created_at, expires_at, revoked_at';

export async function insertToken(
  q: Queryable,
  row: TokenRow,
  sha256: string,
  consoleSession?: string,
  audience?: string,
): Promise<void> {
  await q.query(
    `INSERT INTO tokens (token_id, token_sha256, name, scopes, org_id, project_id, user_id, last_four,
                         created_at, expires_at, revoked_at, console_session_sha256, audience)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.token_id,
      sha256,
      row.name,
      row.scopes,
      row.org_id,
      row.project_id,
      row.user_id,
      row.last_four,
      row.created_at,
      row.expires_at,
      row.revoked_at,
      consoleSession ?? null,
      audience ?? null,
    ],
  );
}

/** Token by the SHA-256 of its value, with its org's capabilities; read fresh on every call. */
export async function findTokenByHash(
  q: Queryable,
  sha256: string,
): Promise<
  (TokenRow & { capabilities: ControlledCapability[]; console: boolean; audience: string | null }) | undefined
> {
  const { rows } = await q.query<
    TokenRow & { capabilities: ControlledCapability[] | null; console: boolean; audience: string | null }
  >(
    `SELECT ${COLUMNS},
       (SELECT array_agg(c.capability ORDER BY c.capability) FROM org_capabilities c
         WHERE c.org_id = tokens.org_id AND c.enabled) AS capabilities,
       console_session_sha256 IS NOT NULL AS console, audience
     FROM tokens WHERE token_sha256 = $1`,
    [sha256],
  );
  const row = rows[0];
  return row && { ...row, capabilities: row.capabilities ?? [] };
}

export async function getToken(q: Queryable, tokenId: string): Promise<TokenRow | undefined> {
  const { rows } = await q.query<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE token_id = $1`, [tokenId]);
  return rows[0];
}

export async function listTokens(q: Queryable, projectId: string, scope?: string): Promise<TokenListItem[]> {
  const { rows } = await q.query<TokenRow>(
    `SELECT ${COLUMNS} FROM tokens WHERE project_id = $1 AND ($2::text IS NULL OR $2 = ANY (scopes))
     ORDER BY created_order`,
    [projectId, scope ?? null],
  );
  return rows.map(toListItem);
}

export function toListItem(row: TokenRow): TokenListItem {
  return {
    token_id: row.token_id,
    name: row.name,
    project_id: row.project_id,
    user_id: row.user_id,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    last_four: row.last_four,
  };
}

/** The MCP page's row: a listed token and when it last answered a tool call (its latest audit record). */
export interface ConsoleTokenItem extends TokenListItem {
  last_used_at: string | null;
  /** The MCP client that signed in with OAuth and holds this grant; null for a pasted token. */
  oauth_client_id: string | null;
}

/**
 * The MCP tokens people made for a project (not the console's own session tokens), oldest first,
 * each with its last use. The audit index by (project, token, seq) makes each last use one probe.
 */
export async function listConsoleTokens(
  q: Queryable,
  projectId: string,
  scope: string,
): Promise<ConsoleTokenItem[]> {
  const { rows } = await q.query<TokenRow & { last_used_at: string | null; oauth_client_id: string | null }>(
    `SELECT ${COLUMNS}, oauth_client_id,
       (SELECT a.at FROM audit_records a
         WHERE a.project_id = tokens.project_id AND a.token_id = tokens.token_id
         ORDER BY a.seq DESC LIMIT 1) AS last_used_at
     FROM tokens
     WHERE project_id = $1 AND $2 = ANY (scopes) AND console_session_sha256 IS NULL
     ORDER BY created_order`,
    [projectId, scope],
  );
  return rows.map((row) => ({
    ...toListItem(row),
    last_used_at: row.last_used_at,
    oauth_client_id: row.oauth_client_id,
  }));
}

/** The live tokens the console made for a session: revoked when it logs out. */
export async function consoleSessionTokenIds(q: Queryable, sessionSha256: string): Promise<string[]> {
  const { rows } = await q.query<{ token_id: string }>(
    'SELECT token_id FROM tokens WHERE console_session_sha256 = $1 AND revoked_at IS NULL',
    [sessionSha256],
  );
  return rows.map((r) => r.token_id);
}

/** Sets revoked_at once; revoking again keeps the first time. Returns it, or undefined if unknown. */
export async function revokeToken(q: Queryable, tokenId: string, now: Date): Promise<Date | undefined> {
  const { rows } = await q.query<{ revoked_at: Date }>(
    'UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE token_id = $1 RETURNING revoked_at',
    [tokenId, now],
  );
  return rows[0]?.revoked_at;
}
