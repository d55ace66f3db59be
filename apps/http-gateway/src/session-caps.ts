// Who may hold how many MCP sessions of one gateway instance, and whose session goes when a cap is
// reached. Pure: no SDK, no timers, so the rule outlives the transport it is used with.
//
// A tenant can only ever push out its own sessions. At the per-token cap the token's least recently
// used idle session goes; at the per-project cap the project's; at the per-org cap and at the
// instance cap again only the requesting project's. When no such idle session exists the newcomer
// is refused: 429 when its own token, project or org is at its cap, 503 when the instance is full of
// other tenants' sessions, with a Retry-After of when the first idle session expires.
//
// No tenant can fill the instance: a project's cap is below its org's, and an org's below the
// instance's, so however many projects one org opens sessions for, other orgs find room.

export interface SessionCapLimits {
  /** Idle sessions (no request or stream open) expire after this long. */
  idleMs: number;
  /** Sessions of the instance, all projects together. */
  maxSessions: number;
  maxSessionsPerToken: number;
  maxSessionsPerProject: number;
  /** Sessions of one org, all its projects together: below `maxSessions`, so one org cannot fill it. */
  maxSessionsPerOrg: number;
}

export const DEFAULT_SESSION_CAPS: SessionCapLimits = {
  idleMs: 30 * 60_000,
  maxSessions: 1000,
  maxSessionsPerToken: 100,
  maxSessionsPerProject: 250,
  maxSessionsPerOrg: 400,
};

/** What the rule needs to know of a session (or of a session being opened: active, never evicted). */
export interface SessionSlot {
  readonly id: string;
  readonly tokenId: string;
  readonly projectId: string;
  /** The project's org; a caller without one (stdio) counts as an org of its own project. */
  readonly orgId: string | null;
  /** Requests and streams in progress; a busy session is never evicted. */
  readonly active: number;
  readonly lastSeen: number;
}

export type RoomPlan =
  /** Room after closing these sessions (all of the newcomer's own project). */
  | { kind: 'room'; evict: string[] }
  /** The newcomer's token, project or org is at its cap and none of its own sessions may go. */
  | { kind: 'busy'; scope: 'token' | 'project' | 'org'; retryAfterSeconds: number }
  /** The instance is at its cap and the newcomer's project has no idle session to give up. */
  | { kind: 'full'; retryAfterSeconds: number };

/** When every candidate is busy: a session in use never expires, so this is a guess. */
export const BUSY_RETRY_AFTER_SECONDS = 60;

/**
 * The plan for one more session of `newcomer` among `sessions`. Reserving the slot is the
 * caller's (count it as a busy session until it is opened or abandoned), so concurrent
 * initializes cannot overshoot a cap.
 */
export function planRoom(
  sessions: readonly SessionSlot[],
  newcomer: { tokenId: string; projectId: string; orgId: string | null },
  limits: SessionCapLimits,
  now: number,
): RoomPlan {
  const evict = new Set<string>();
  const live = (s: SessionSlot) => !evict.has(s.id);
  const oldestIdle = (candidates: SessionSlot[]) =>
    candidates
      .filter((s) => s.active === 0 && live(s))
      .sort((a, b) => a.lastSeen - b.lastSeen || a.id.localeCompare(b.id))[0];

  const orgOf = (s: { projectId: string; orgId: string | null }) => s.orgId ?? `project:${s.projectId}`;
  const org = orgOf(newcomer);
  const ofOrg = sessions.filter((s) => orgOf(s) === org);
  const ofProject = ofOrg.filter((s) => s.projectId === newcomer.projectId);
  const ofToken = ofProject.filter((s) => s.tokenId === newcomer.tokenId);

  if (ofToken.length >= limits.maxSessionsPerToken) {
    const victim = oldestIdle(ofToken);
    if (!victim) return { kind: 'busy', scope: 'token', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    evict.add(victim.id);
  }
  if (ofProject.filter(live).length >= limits.maxSessionsPerProject) {
    const victim = oldestIdle(ofProject);
    if (!victim) return { kind: 'busy', scope: 'project', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    evict.add(victim.id);
  }
  if (ofOrg.filter(live).length >= limits.maxSessionsPerOrg) {
    const victim = oldestIdle(ofProject);
    if (!victim)
      return { kind: 'busy', scope: 'org', retryAfterSeconds: untilFirstExpiry(ofOrg, limits, now) };
    evict.add(victim.id);
  }
  if (sessions.filter(live).length >= limits.maxSessions) {
    const victim = oldestIdle(ofProject);
    if (!victim) return { kind: 'full', retryAfterSeconds: untilFirstExpiry(sessions, limits, now) };
    evict.add(victim.id);
  }
  return { kind: 'room', evict: [...evict] };
}

/** Seconds until the first idle session of the instance expires (and so frees a place). */
function untilFirstExpiry(sessions: readonly SessionSlot[], limits: SessionCapLimits, now: number): number {
  const idle = sessions.filter((s) => s.active === 0).map((s) => s.lastSeen);
  if (idle.length === 0) return BUSY_RETRY_AFTER_SECONDS;
  const expiresAt = Math.min(...idle) + limits.idleMs;
  return Math.max(1, Math.ceil((expiresAt - now) / 1000));
}
