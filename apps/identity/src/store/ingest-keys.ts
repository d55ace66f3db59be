import type { Queryable } from '@svc/postgres';
import { newId, randomSecret } from '../ids';

export interface IngestKey {
  key_id: string;
  project_id: string;
  secret: string;
  active: boolean;
}

export async function createIngestKey(q: Queryable, projectId: string, now: Date): Promise<IngestKey> {
  const key = { key_id: newId('key'), project_id: projectId, secret: randomSecret(32), active: true };
  await q.query(
    'INSERT INTO ingest_keys (key_id, secret, project_id, active, created_at) VALUES ($1, $2, $3, true, $4)',
    [key.key_id, key.secret, projectId, now],
  );
  return key;
}

export async function getIngestKey(q: Queryable, keyId: string): Promise<IngestKey | undefined> {
  const { rows } = await q.query<IngestKey>(
    'SELECT key_id, project_id, secret, active FROM ingest_keys WHERE key_id = $1',
    [keyId],
  );
  return rows[0];
}
