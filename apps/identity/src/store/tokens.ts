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

export async function insertToken(q: Queryable, row: TokenRow, sha256: string): Promise<void> {
  await q.query(
    `INSERT INTO tokens (token_id, token_sha256, name, scopes, org_id, project_id, user_id, last_four,
                         created_at, expires_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
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
    ],
  );
}

/** Token by the SHA-256 of its value, with its org's capabilities; read fresh on every call. */
export async function findTokenByHash(
  q: Queryable,
  sha256: string,
): Promise<(TokenRow & { capabilities: ControlledCapability[] }) | undefined> {
  const { rows } = await q.query<TokenRow & { capabilities: ControlledCapability[] | null }>(
    `SELECT ${COLUMNS},
       (SELECT array_agg(c.capability ORDER BY c.capability) FROM org_capabilities c
         WHERE c.org_id = tokens.org_id AND c.enabled) AS capabilities
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

/** Sets revoked_at once; revoking again keeps the first time. Returns it, or undefined if unknown. */
export async function revokeToken(q: Queryable, tokenId: string, now: Date): Promise<Date | undefined> {
  const { rows } = await q.query<{ revoked_at: Date }>(
    'UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE token_id = $1 RETURNING revoked_at',
    [tokenId, now],
  );
  return rows[0]?.revoked_at;
}
