import type { Queryable } from '@svc/postgres';
import { newId, randomSecret } from '../ids';

export interface IngestKey {
  key_id: string;
  project_id: string;
  secret: string;
  active: boolean;
  /** Exact web origins whose pages may send with this key (CORS at the core); empty: none. */
  allowed_origins: string[];
}

const COLUMNS = 'key_id, project_id, secret, active, allowed_origins';

export async function createIngestKey(
  q: Queryable,
  projectId: string,
  allowedOrigins: readonly string[],
  now: Date,
): Promise<IngestKey> {
  const key: IngestKey = {
    key_id: newId('key'),
    project_id: projectId,
    secret: randomSecret(32),
    active: true,
    allowed_origins: [...allowedOrigins],
  };
  await q.query(
    `INSERT INTO ingest_keys (key_id, secret, project_id, active, created_at, allowed_origins)
     VALUES ($1, $2, $3, true, $4, $5)`,
    [key.key_id, key.secret, projectId, now, key.allowed_origins],
  );
  return key;
}

export async function getIngestKey(q: Queryable, keyId: string): Promise<IngestKey | undefined> {
  const { rows } = await q.query<IngestKey>(`SELECT ${COLUMNS} FROM ingest_keys WHERE key_id = $1`, [keyId]);
  return rows[0];
}

/** Replaces the key's list; undefined for an unknown key, or one of another project than `projectId`. */
export async function setAllowedOrigins(
  q: Queryable,
  keyId: string,
  allowedOrigins: readonly string[],
  projectId?: string,
): Promise<IngestKey | undefined> {
  const { rows } = await q.query<IngestKey>(
    `UPDATE ingest_keys SET allowed_origins = $2
     WHERE key_id = $1 AND ($3::text IS NULL OR project_id = $3) RETURNING ${COLUMNS}`,
    [keyId, [...allowedOrigins], projectId ?? null],
  );
  return rows[0];
}

/**
 * Turns a key off for good (a leaked one): the core refuses it once its short cache of the key has
 * run out. Undefined for an unknown key, or one of another project than `projectId`.
 */
export async function deactivateIngestKey(
  q: Queryable,
  keyId: string,
  projectId?: string,
): Promise<IngestKey | undefined> {
  const { rows } = await q.query<IngestKey>(
    `UPDATE ingest_keys SET active = false
     WHERE key_id = $1 AND ($2::text IS NULL OR project_id = $2) RETURNING ${COLUMNS}`,
    [keyId, projectId ?? null],
  );
  return rows[0];
}
