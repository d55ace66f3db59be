import type { Postgres } from '@svc/postgres';
import type { Adapter, AdapterPayload } from 'oidc-provider';

const PURGE_EVERY_MS = 60_000;

/**
 * Deletes what expired (codes, interactions, access and refresh tokens, grants past their end):
 * reads already ignore it, this keeps the table to what is live. Run at most once a minute, on a write.
 */
export async function purgeExpiredOAuthModels(db: Postgres, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'WITH gone AS (DELETE FROM oauth_models WHERE expires_at <= $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
    [now],
  );
  return rows[0]?.n ?? 0;
}

/**
 * oidc-provider's storage in identity's store (table oauth_models). Expiry is the provider's own
 * clock (wall time), as its tokens carry. Any model of a grant whose tokens row is revoked reads as
 * absent: a revocation on the /mcp page (or a person's removal) ends the access and refresh tokens
 * of the grant at once, with no second place to clean.
 */
export function pgAdapterClass(
  db: Postgres,
  /** Told of each model destroyed (the throttle frees a finished interaction's place). */
  onDestroy?: (model: string, id: string) => void,
): new (
  model: string,
) => Adapter {
  let purgedAt = Number.NEGATIVE_INFINITY;
  return class PgAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (Date.now() - purgedAt >= PURGE_EVERY_MS) {
        purgedAt = Date.now();
        await purgeExpiredOAuthModels(db, new Date());
      }
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      // A Grant is its own grant; every other model names the grant it belongs to, if any.
      const grantId = this.model === 'Grant' ? id : (payload.grantId ?? null);
      await db.query(
        `INSERT INTO oauth_models (model, id, payload, grant_id, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (model, id) DO UPDATE
           SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
               expires_at = EXCLUDED.expires_at`,
        [this.model, id, JSON.stringify(payload), grantId, payload.uid ?? null, expiresAt],
      );
    }

    private async findWhere(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
      const { rows } = await db.query<{ payload: AdapterPayload | string; consumed_at: Date | null }>(
        `SELECT m.payload, m.consumed_at FROM oauth_models m
         WHERE m.model = $1 AND m.${column} = $2
           AND (m.expires_at IS NULL OR m.expires_at > $3)
           AND NOT EXISTS (SELECT 1 FROM tokens t
                            WHERE t.oauth_grant_id = m.grant_id AND t.revoked_at IS NOT NULL)`,
        [this.model, value, new Date()],
      );
      const row = rows[0];
      if (!row) return undefined;
      const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
      return row.consumed_at
        ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : payload;
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('id', id);
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('uid', uid);
    }

    // No device flow: user codes are never stored.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await db.query(
        'UPDATE oauth_models SET consumed_at = COALESCE(consumed_at, $3) WHERE model = $1 AND id = $2',
        [this.model, id, new Date()],
      );
    }

    async destroy(id: string): Promise<void> {
      await db.query('DELETE FROM oauth_models WHERE model = $1 AND id = $2', [this.model, id]);
      onDestroy?.(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.query('DELETE FROM oauth_models WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
    }
  };
}
