import type { Queryable } from '@svc/postgres';

/**
 * Remembers the nonce of a signed device request until `expiresAt`; false when the project's
 * requests named it already (the same signed request again).
 */
export async function rememberNonce(
  q: Queryable,
  projectId: string,
  nonce: string,
  expiresAt: Date,
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO recall_device_nonces (project_id, nonce, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING nonce`,
    [projectId, nonce, expiresAt],
  );
  return rows.length > 0;
}

/** Forgets nonces whose signatures are stale: no request naming them can be fresh any more. */
export async function forgetStaleNonces(q: Queryable, now: Date): Promise<void> {
  await q.query('DELETE FROM recall_device_nonces WHERE expires_at < $1', [now]);
}
