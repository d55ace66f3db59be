import fc from 'fast-check';
import { BUSY_RETRY_AFTER_SECONDS, planRoom, type SessionCapLimits, type SessionSlot } from './session-caps';

const LIMITS: SessionCapLimits = {
  idleMs: 60_000,
  maxSessions: 6,
  maxSessionsPerToken: 2,
  maxSessionsPerProject: 4,
  maxSessionsPerOrg: 5,
};
const NOW = 1_000_000;

const slot = (
  id: string,
  tokenId: string,
  projectId: string,
  lastSeen: number,
  active = 0,
  orgId: string | null = null,
): SessionSlot => ({ id, tokenId, projectId, orgId, active, lastSeen });

describe('planRoom', () => {
  it('has room without evicting anyone below every cap', () => {
    expect(
      planRoom([slot('s1', 't1', 'a', NOW)], { tokenId: 't1', projectId: 'a', orgId: null }, LIMITS, NOW),
    ).toEqual({
      kind: 'room',
      evict: [],
    });
  });

  it("at the token's cap evicts the token's least recently used idle session", () => {
    const sessions = [
      slot('new', 't1', 'a', NOW - 1),
      slot('old', 't1', 'a', NOW - 9),
      slot('x', 't2', 'a', 0),
    ];
    expect(planRoom(sessions, { tokenId: 't1', projectId: 'a', orgId: null }, LIMITS, NOW)).toEqual({
      kind: 'room',
      evict: ['old'],
    });
  });

  it("at the instance cap evicts the newcomer's project's idle session, never another project's", () => {
    // Project b's sessions, idle for 20 s of the 60 s idle timeout.
    const others = [1, 2, 3, 4, 5].map((i) => slot(`b${i}`, `tb${i}`, 'b', NOW - 20_000));
    const sessions = [...others, slot('a1', 't1', 'a', NOW - 5)];
    expect(planRoom(sessions, { tokenId: 't2', projectId: 'a', orgId: null }, LIMITS, NOW)).toEqual({
      kind: 'room',
      evict: ['a1'],
    });
    // Without an idle session of its own: refused, retry when the first idle session expires.
    const busyOwn = [...others, slot('a1', 't1', 'a', NOW - 5, 1)];
    expect(planRoom(busyOwn, { tokenId: 't2', projectId: 'a', orgId: null }, LIMITS, NOW)).toEqual({
      kind: 'full',
      retryAfterSeconds: (LIMITS.idleMs - 20_000) / 1000,
    });
  });

  it('answers busy when every session of the token or project at its cap is in use', () => {
    const token = [slot('a', 't1', 'a', 0, 1), slot('b', 't1', 'a', 0, 2)];
    expect(planRoom(token, { tokenId: 't1', projectId: 'a', orgId: null }, LIMITS, NOW)).toEqual({
      kind: 'busy',
      scope: 'token',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
    const project = [1, 2, 3, 4].map((i) => slot(`p${i}`, `t${i}`, 'a', 0, 1));
    expect(planRoom(project, { tokenId: 't9', projectId: 'a', orgId: null }, LIMITS, NOW)).toMatchObject({
      kind: 'busy',
      scope: 'project',
    });
  });

  it("at the org's cap evicts the newcomer's project's idle session, or answers busy for the org", () => {
    // Org o: project a holds 1 idle session, project b 4 (its cap): 5, the org's cap.
    const sessions = [
      slot('a1', 't1', 'a', NOW - 10, 0, 'o'),
      ...[1, 2, 3, 4].map((i) => slot(`b${i}`, `tb${i}`, 'b', NOW - 20_000, 0, 'o')),
    ];
    expect(planRoom(sessions, { tokenId: 't2', projectId: 'a', orgId: 'o' }, LIMITS, NOW)).toEqual({
      kind: 'room',
      evict: ['a1'],
    });
    // A third project of the org has nothing of its own to give up: busy, never b's sessions.
    expect(planRoom(sessions, { tokenId: 't9', projectId: 'c', orgId: 'o' }, LIMITS, NOW)).toEqual({
      kind: 'busy',
      scope: 'org',
      retryAfterSeconds: (LIMITS.idleMs - 20_000) / 1000,
    });
    // Another org finds room: one org's projects never fill the instance.
    expect(planRoom(sessions, { tokenId: 'tx', projectId: 'x', orgId: 'other' }, LIMITS, NOW)).toEqual({
      kind: 'room',
      evict: [],
    });
  });

  it('never evicts a busy session or one of another project, and always leaves room under every cap', () => {
    const arbitrarySlot = fc.record({
      tokenId: fc.constantFrom('t1', 't2', 't3', 't4', 't5'),
      active: fc.constantFrom(0, 0, 1),
      lastSeen: fc.integer({ min: 0, max: NOW }),
    });
    // t1 and t2 are project a's tokens, t3 and t4 project b's, both of org o; t5 is project c's, of no org.
    const projectOf = (t: string) => (t === 't1' || t === 't2' ? 'a' : t === 't5' ? 'c' : 'b');
    const orgOf = (project: string) => (project === 'c' ? null : 'o');
    fc.assert(
      fc.property(
        fc.array(arbitrarySlot, { maxLength: LIMITS.maxSessions }),
        fc.constantFrom('t1', 't4', 't5'),
        (raw, token) => {
          const sessions = raw.map((s, i) => {
            const project = projectOf(s.tokenId);
            return slot(`s${i}`, s.tokenId, project, s.lastSeen, s.active, orgOf(project));
          });
          // Only states the caps allow.
          const count = (f: (s: SessionSlot) => boolean) => sessions.filter(f).length;
          fc.pre(
            ['t1', 't2', 't3', 't4', 't5'].every(
              (t) => count((s) => s.tokenId === t) <= LIMITS.maxSessionsPerToken,
            ),
          );
          fc.pre(
            ['a', 'b', 'c'].every((p) => count((s) => s.projectId === p) <= LIMITS.maxSessionsPerProject),
          );
          fc.pre(count((s) => s.orgId === 'o') <= LIMITS.maxSessionsPerOrg);
          const project = projectOf(token);
          const newcomer = { tokenId: token, projectId: project, orgId: orgOf(project) };
          const plan = planRoom(sessions, newcomer, LIMITS, NOW);
          if (plan.kind !== 'room') return;
          const evicted = sessions.filter((s) => plan.evict.includes(s.id));
          for (const s of evicted) {
            expect(s.projectId).toBe(newcomer.projectId);
            expect(s.active).toBe(0);
          }
          const after = [
            ...sessions.filter((s) => !plan.evict.includes(s.id)),
            slot('n', token, project, NOW, 0, newcomer.orgId),
          ];
          expect(after.length).toBeLessThanOrEqual(LIMITS.maxSessions);
          expect(after.filter((s) => s.tokenId === token).length).toBeLessThanOrEqual(
            LIMITS.maxSessionsPerToken,
          );
          expect(after.filter((s) => s.projectId === project).length).toBeLessThanOrEqual(
            LIMITS.maxSessionsPerProject,
          );
          if (newcomer.orgId !== null) {
            expect(after.filter((s) => s.orgId === newcomer.orgId).length).toBeLessThanOrEqual(
              LIMITS.maxSessionsPerOrg,
            );
          }
        },
      ),
    );
  });
});
