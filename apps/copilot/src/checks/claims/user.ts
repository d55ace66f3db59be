import { count } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, type Finding, inconclusive } from '../finding';

type UserClaim = ClaimOf<'user_crashed'>;
interface Channel {
  total: number;
}

export async function userCrashed(claim: UserClaim, evidence: Evidence): Promise<Finding> {
  const user = await evidence.ask<{ found: boolean; crashes: Channel; sessions: Channel }>(
    'user.detail',
    { user_id: claim.user_id, limit: 1 },
    (a) =>
      a.found
        ? `User ${claim.user_id}: ${count(a.crashes.total, 'crash event')} over ${count(a.sessions.total, 'session')}.`
        : `Nothing is stored for user ${claim.user_id}.`,
  );
  if (!user.found) return inconclusive(`Nothing is stored for user ${claim.user_id}.`);
  if (claim.session_id === null) {
    const crashed = user.crashes.total > 0;
    return decided(
      crashed === claim.crashed,
      crashed
        ? `User ${claim.user_id} has ${count(user.crashes.total, 'crash event')}.`
        : `User ${claim.user_id} has no crash event.`,
    );
  }
  const sessionId = claim.session_id;
  const session = await evidence.ask<{
    found: boolean;
    session: { status: string } | null;
    user_ids: string[];
    crashes: Channel;
  }>('session.detail', { session_id: sessionId, limit: 1 }, (a) =>
    a.found
      ? `Session ${sessionId} of ${a.user_ids.join(', ') || 'no user'}: status ${a.session?.status ?? 'unknown'}, ${count(a.crashes.total, 'crash event')}.`
      : `Nothing is stored for session ${sessionId}.`,
  );
  if (!session.found) return inconclusive(`Nothing is stored for session ${sessionId}.`);
  if (!session.user_ids.includes(claim.user_id))
    return inconclusive(`Session ${sessionId} is not a session of user ${claim.user_id}.`);
  const crashed = session.crashes.total > 0 || session.session?.status === 'crashed';
  return decided(
    crashed === claim.crashed,
    crashed
      ? `Session ${sessionId} of user ${claim.user_id} crashed (status ${session.session?.status ?? 'unknown'}, ${count(session.crashes.total, 'crash event')}).`
      : `Session ${sessionId} of user ${claim.user_id} did not crash (status ${session.session?.status ?? 'unknown'}).`,
  );
}
