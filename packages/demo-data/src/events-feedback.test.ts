import { generateDemoProject } from './index';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const project = generateDemoProject({ seed: 42, size: 10, now: NOW, days: 14 });
const sessions = new Map(project.sessions.map((s) => [s.session_id, s]));
const users = new Set(project.users.map((u) => u.user_id));
const UTM = ['utm_source', 'utm_medium', 'utm_campaign'];
const logsBySession = new Map<string, typeof project.logs>();
for (const l of project.logs) {
  if (l.session_id) logsBySession.set(l.session_id, [...(logsBySession.get(l.session_id) ?? []), l]);
}

describe('demo events', () => {
  const { events } = project;

  it('belong to a session of their user, on its platform and version, inside it and before now', () => {
    expect(events.length).toBeGreaterThan(project.sessions.length * 3);
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

  it('carry utm_* on acquisition events only, one first_open per user at their first session', () => {
    const firstOpens = events.filter((e) => e.event_name === 'first_open');
    const usersWithSessions = new Set(project.sessions.map((s) => s.user_id));
    expect(firstOpens.map((e) => e.user_id).sort()).toEqual([...usersWithSessions].sort());
    for (const e of firstOpens) {
      const first = Math.min(
        ...project.sessions.filter((s) => s.user_id === e.user_id).map((s) => Date.parse(s.started_at)),
      );
      expect(Date.parse(e.timestamp)).toBe(first);
    }
    const attributed = events.filter((e) => e.properties?.utm_source !== undefined);
    expect(attributed.length).toBeGreaterThan(firstOpens.length / 2);
    for (const e of attributed) {
      expect(['first_open', 'campaign_open']).toContain(e.event_name);
      for (const key of UTM) expect(typeof e.properties![key]).toBe('string');
    }
    expect(new Set(attributed.map((e) => e.properties!.utm_source)).size).toBeGreaterThanOrEqual(4);
  });

  it('replay the screens each session logged', () => {
    const viewsBySession = new Map<string, string[]>();
    for (const e of events.filter((e) => e.event_name === 'screen_view'))
      viewsBySession.set(e.session_id!, [
        ...(viewsBySession.get(e.session_id!) ?? []),
        String(e.properties!.screen),
      ]);
    for (const s of project.sessions) {
      const logged = logsBySession
        .get(s.session_id)!
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
      expect(users.has(f.user_id)).toBe(true);
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
