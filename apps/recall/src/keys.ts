import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Queryable } from '@svc/postgres';

// Per-project data keys (docs/recall.md): random 256-bit keys, stored wrapped (AES-256-GCM) by the
// master key, bound to their project and version. Rotation adds a version; files keep naming the
// version they were written with, so old files stay readable.

export interface DataKey {
  version: number;
  key: Buffer;
}

const WRAP_IV = 12;
const WRAP_TAG = 16;

/** The master key from its configured form: 32 bytes, base64 or base64url. */
export function parseMasterKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (key.length !== 32) throw new Error('the recall master key must be 32 bytes, base64-encoded');
  return key;
}

const aad = (projectId: string, version: number) => Buffer.from(`recall-key:${projectId}:${version}`, 'utf8');

export function wrapKey(master: Buffer, projectId: string, version: number, key: Buffer): string {
  const iv = randomBytes(WRAP_IV);
  const cipher = createCipheriv('aes-256-gcm', master, iv);
  cipher.setAAD(aad(projectId, version));
  const body = Buffer.concat([cipher.update(key), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

export function unwrapKey(master: Buffer, projectId: string, version: number, wrapped: string): Buffer {
  const bytes = Buffer.from(wrapped, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', master, bytes.subarray(0, WRAP_IV));
  decipher.setAAD(aad(projectId, version));
  decipher.setAuthTag(bytes.subarray(bytes.length - WRAP_TAG));
  return Buffer.concat([decipher.update(bytes.subarray(WRAP_IV, bytes.length - WRAP_TAG)), decipher.final()]);
}

export interface KeyStore {
  /** The version new files are written with; created on first use. */
  active(projectId: string): Promise<DataKey>;
  /** A version named by a stored file; undefined when the project never had it. */
  version(projectId: string, version: number): Promise<DataKey | undefined>;
  /** A new active version; earlier ones stay readable. */
  rotate(projectId: string): Promise<DataKey>;
}

export function createKeyStore(db: Queryable, master: Buffer, clock: () => Date): KeyStore {
  const cache = new Map<string, Buffer>();
  const unwrap = (projectId: string, version: number, wrapped: string) => {
    const id = `${projectId}\u0000${version}`;
    let key = cache.get(id);
    if (!key) {
      key = unwrapKey(master, projectId, version, wrapped);
      cache.set(id, key);
    }
    return key;
  };
  async function latest(projectId: string): Promise<DataKey | undefined> {
    const { rows } = await db.query<{ version: number; wrapped: string }>(
      'SELECT version, wrapped FROM recall_keys WHERE project_id = $1 ORDER BY version DESC LIMIT 1',
      [projectId],
    );
    const row = rows[0];
    return row ? { version: row.version, key: unwrap(projectId, row.version, row.wrapped) } : undefined;
  }
  async function insert(projectId: string, version: number): Promise<void> {
    const key = randomBytes(32);
    // Two first uses at once: one insert wins, both then read the winner.
    await db.query(
      `INSERT INTO recall_keys (project_id, version, wrapped, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, version) DO NOTHING`,
      [projectId, version, wrapKey(master, projectId, version, key), clock()],
    );
  }
  return {
    async active(projectId) {
      const found = await latest(projectId);
      if (found) return found;
      await insert(projectId, 1);
      return (await latest(projectId))!;
    },
    async version(projectId, version) {
      const { rows } = await db.query<{ wrapped: string }>(
        'SELECT wrapped FROM recall_keys WHERE project_id = $1 AND version = $2',
        [projectId, version],
      );
      return rows[0] ? { version, key: unwrap(projectId, version, rows[0].wrapped) } : undefined;
    },
    async rotate(projectId) {
      const current = await latest(projectId);
      await insert(projectId, (current?.version ?? 0) + 1);
      return (await latest(projectId))!;
    },
  };
}
