import { generateDemoProject } from './index';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const project = generateDemoProject({ seed: 42, size: 2, now: NOW, days: 14 });
const sessions = new Map(project.sessions.map((s) => [s.session_id, s]));
/** The storied users: every session of theirs sends events. Of the crowd, only those who accepted analytics do. */
const storied = new Set(project.users.map((u) => u.user_id));
const storiedSessions = project.sessions.filter((s) => storied.has(s.user_id));
const firstStart = new Map<string, number>();
for (const s of project.sessions) {
  const t = Date.parse(s.started_at);
  if (t < (firstStart.get(s.user_id) ?? Number.POSITIVE_INFINITY)) firstStart.set(s.user_id, t);
}
const UTM = ['utm_source', 'utm_medium', 'utm_campaign'];
const logsBySession = new Map<string, typeof project.logs>();
for (const l of project.logs) {
  if (l.session_id) logsBySession.set(l.session_id, [...(logsBySession.get(l.session_id) ?? []), l]);
}

describe('demo events', () => {
  const { events } = project;

  it('belong to a session of their user, on its platform and version, inside it and before now', () => {
    const storiedEvents = events.filter((e) => storied.has(e.user_id)).length;
    expect(storiedEvents).toBeGreaterThan(storiedSessions.length * 3);
    expect(events.length).toBeGreaterThan(storiedEvents * 2);
    // Collected first and asserted once: ten thousand expect() calls would only slow the test.
    const misplaced = events.filter((e) => {
      const s = sessions.get(e.session_id!);
      const t = Date.parse(e.timestamp);
      return (
        !s ||
        s.user_id !== e.user_id ||
        s.platform !== e.platform ||
        s.app_version !== e.app_version ||
        t < Date.parse(s.started_at) ||
        t > NOW ||
        (s.ended_at !== undefined && t > Date.parse(s.ended_at))
      );
    });
    expect(misplaced).toEqual([]);
    expect(new Set(events.map((e) => e.event_name)).size).toBeGreaterThanOrEqual(6);
  });

  it("open with one first_open per user at their first session, then carry the user's campaign on every event", () => {
    const firstOpens = events.filter((e) => e.event_name === 'first_open');
    const usersWithEvents = new Set(events.map((e) => e.user_id));
    expect(firstOpens.map((e) => e.user_id).sort()).toEqual([...usersWithEvents].sort());
    for (const user of storied) if (firstStart.has(user)) expect(usersWithEvents.has(user)).toBe(true);
    const acquiredBy = new Map<string, Record<string, unknown>>();
    for (const e of firstOpens) {
      expect(Date.parse(e.timestamp)).toBe(firstStart.get(e.user_id));
      if (e.properties!.utm_source !== undefined) acquiredBy.set(e.user_id, e.properties!);
      else expect(e.properties).toEqual({ organic: true });
    }
    expect(acquiredBy.size).toBeGreaterThan(firstOpens.length / 2);
    expect(new Set([...acquiredBy.values()].map((p) => p.utm_source)).size).toBeGreaterThanOrEqual(4);
    // First touch: every other event of a campaign user carries that campaign; an organic user's carry
    // none, except campaign_open, which carries the campaign that reopened the app.
    const wrong = events.filter((e) => {
      if (e.event_name === 'first_open') return false;
      if (e.event_name === 'campaign_open') return UTM.some((key) => typeof e.properties![key] !== 'string');
      const acquisition = acquiredBy.get(e.user_id);
      return UTM.some((key) => e.properties?.[key] !== acquisition?.[key]);
    });
    expect(wrong).toEqual([]);
  });

  it('replay the screens each session logged', () => {
    const viewsBySession = new Map<string, string[]>();
    for (const e of events.filter((e) => e.event_name === 'screen_view'))
      viewsBySession.set(e.session_id!, [
        ...(viewsBySession.get(e.session_id!) ?? []),
        String(e.properties!.screen),
      ]);
    const tracked = new Set(events.map((e) => e.user_id));
    for (const s of project.sessions.filter((s) => tracked.has(s.user_id))) {
      // A crowd session that did not crash logs nothing and shows no screen but Home.
      const logged = (logsBySession.get(s.session_id) ?? [])
        .filter((l) => l.message.startsWith('Screen view: '))
        .map((l) => l.message.slice('Screen view: '.length));
      expect(viewsBySession.get(s.session_id) ?? []).toEqual(logged);
    }
  });
});

describe('demo feedback', () => {
  const { feedback } = project;

  it('links users and their sessions, rates 1-5 or not at all', () => {
    expect(feedback.length).toBeGreaterThan(50);
    for (const f of feedback) {
      expect(sessions.get(f.session_id!)?.user_id).toBe(f.user_id);
      expect(Date.parse(f.timestamp)).toBeLessThanOrEqual(NOW);
      if (f.rating !== undefined) expect([1, 2, 3, 4, 5]).toContain(f.rating);
    }
    const unrated = feedback.filter((f) => f.rating === undefined).length;
    expect(unrated).toBeGreaterThan(0);
    expect(unrated).toBeLessThan(feedback.length / 2);
    expect(new Set(feedback.map((f) => f.feedback_id)).size).toBe(feedback.length);
  });

  it('correlates with crashes and slow screens', () => {
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const onCrashed = feedback.filter((f) => sessions.get(f.session_id!)!.status === 'crashed');
    const onOk = feedback.filter((f) => sessions.get(f.session_id!)!.status === 'ok');
    expect(onCrashed.length).toBeGreaterThan(10);
    for (const f of onCrashed) expect(f.message).toMatch(/crash|closed/i);
    const ratings = (fs: typeof feedback) => fs.flatMap((f) => (f.rating === undefined ? [] : [f.rating]));
    expect(avg(ratings(onCrashed))).toBeLessThan(2.5);
    expect(avg(ratings(onOk))).toBeGreaterThan(avg(ratings(onCrashed)) + 0.5);
    const slow = feedback.filter((f) => /slow|so long to load/i.test(f.message) && !/crash/i.test(f.message));
    expect(slow.length).toBeGreaterThan(0);
    for (const f of slow) {
      const screen = f.message.split(' ')[0] === 'Why' ? f.message.split(' ')[2]! : f.message.split(' ')[0]!;
      const logged = logsBySession
        .get(f.session_id!)!
        .some((l) => l.message.startsWith('Slow frame:') && l.message.endsWith(` on ${screen}`));
      expect(logged).toBe(true);
    }
  });
});
