import type { Queryable } from '@svc/postgres';

export interface SessionRow {
  user_id: string;
  org_id: string;
  expires_at: Date;
  step_up_until: Date | null;
}

export async function createSession(
  q: Queryable,
  input: { sha256: string; userId: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  await q.query(
    'INSERT INTO console_sessions (session_sha256, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
    [input.sha256, input.userId, now, input.expiresAt],
  );
}

/** A session that has not expired at `now`, with its user's org. */
export async function findLiveSession(
  q: Queryable,
  sha256: string,
  now: Date,
): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `SELECT s.user_id, u.org_id, s.expires_at, s.step_up_until
     FROM console_sessions s JOIN users u ON u.user_id = s.user_id
     WHERE s.session_sha256 = $1 AND s.expires_at > $2`,
    [sha256, now],
  );
  return rows[0];
}

export async function setStepUp(q: Queryable, sha256: string, until: Date): Promise<void> {
  await q.query('UPDATE console_sessions SET step_up_until = $2 WHERE session_sha256 = $1', [sha256, until]);
}

/** Ends a session now (logout); the tokens the console made for it are revoked by the caller. */
export async function endSession(q: Queryable, sha256: string): Promise<void> {
  await q.query('DELETE FROM console_sessions WHERE session_sha256 = $1', [sha256]);
}
