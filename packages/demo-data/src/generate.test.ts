import {
  type DemoOptions,
  generateDemoProject,
  iterateDemoBatches,
  TRICKY_MESSAGES,
  userCount,
} from './index';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const options: DemoOptions = { seed: 42, size: 1, now: NOW, days: 14 };

describe('generateDemoProject', () => {
  const project = generateDemoProject(options);

  it('is deterministic: same options, identical output', () => {
    expect(JSON.stringify(generateDemoProject({ ...options }))).toBe(JSON.stringify(project));
  });

  it('changes with the seed', () => {
    const other = generateDemoProject({ ...options, seed: 43 });
    expect(other.logs.map((l) => l.message)).not.toEqual(project.logs.map((l) => l.message));
  });

  it('gives a few thousand logs at size 1 and scales roughly linearly', () => {
    expect(project.logs.length).toBeGreaterThan(1500);
    expect(project.logs.length).toBeLessThan(8000);
    const double = generateDemoProject({ ...options, size: 2 });
    expect(double.users.length).toBe(2 * project.users.length);
    for (const type of ['logs', 'sessions', 'events', 'crashes', 'feedback'] as const) {
      expect(project[type].length).toBeGreaterThan(0);
      const ratio = double[type].length / project[type].length;
      expect(ratio).toBeGreaterThan(type === 'crashes' || type === 'feedback' ? 1.2 : 1.6);
      expect(ratio).toBeLessThan(type === 'crashes' || type === 'feedback' ? 3.2 : 2.4);
    }
  });

  it('stays inside [now - days, now] and is denser towards now', () => {
    const times = [
      ...project.logs.map((l) => l.timestamp),
      ...project.crashes.map((c) => c.timestamp),
      ...project.sessions.map((s) => s.started_at),
      ...project.events.map((e) => e.timestamp),
      ...project.feedback.map((f) => f.timestamp),
    ].map((t) => Date.parse(t));
    for (const t of times) {
      expect(t).toBeLessThanOrEqual(NOW);
      expect(t).toBeGreaterThanOrEqual(NOW - 14 * DAY);
    }
    const recentHalf = times.filter((t) => t >= NOW - 7 * DAY).length;
    expect(recentHalf).toBeGreaterThan(times.length - recentHalf);
  });

  it('has realistic level proportions and one FATAL line per crash, linked by event_id', () => {
    // Proportions of the lines the storied users and the backend send (a crowd user sends the lines of a crash only).
    const storied = new Set(project.users.map((u) => u.user_id));
    const told = project.logs.filter((l) => l.user_id === undefined || storied.has(l.user_id));
    const count = (level: string) => told.filter((l) => l.level === level).length;
    expect(count('INFO')).toBeGreaterThan(count('WARN'));
    expect(count('WARN')).toBeGreaterThan(count('ERROR'));
    expect(count('ERROR')).toBeGreaterThan(count('FATAL'));
    expect(project.crashes.length).toBeGreaterThan(0);
    const fatal = project.logs.filter((l) => l.level === 'FATAL');
    expect(fatal.map((l) => l.event_id).sort()).toEqual(project.crashes.map((c) => c.event_id).sort());
  });

  it('covers sources, platforms, versions, traces and tricky messages', () => {
    expect(new Set(project.logs.map((l) => l.source))).toEqual(new Set(['backend', 'device']));
    expect(new Set(project.logs.map((l) => l.platform).filter(Boolean))).toEqual(
      new Set(['ios', 'android', 'web']),
    );
    expect(new Set(project.sessions.map((s) => s.app_version)).size).toBeGreaterThan(2);
    const backend = project.logs.filter((l) => l.source === 'backend');
    const traced = backend.filter((l) => l.trace_id);
    expect(traced.length).toBeGreaterThan(0);
    expect(traced.length).toBeLessThan(backend.length);
    for (const l of traced) expect(l.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const messages = new Set(project.logs.map((l) => l.message));
    expect(TRICKY_MESSAGES.filter((m) => messages.has(m)).length).toBeGreaterThanOrEqual(5);
  });

  it('writes each session as a story within its own bounds', () => {
    const storied = new Set(project.users.map((u) => u.user_id));
    const deviceLines = new Map<string, typeof project.logs>();
    for (const l of project.logs)
      if (l.session_id && l.source === 'device')
        deviceLines.set(l.session_id, [...(deviceLines.get(l.session_id) ?? []), l]);
    for (const session of project.sessions) {
      const lines = deviceLines.get(session.session_id) ?? [];
      // A crowd user's session that did not crash sends its session record only.
      if (!storied.has(session.user_id) && session.status !== 'crashed') {
        expect(lines).toEqual([]);
        continue;
      }
      expect(lines[0]?.message).toMatch(/^App launched/);
      const times = lines.map((l) => Date.parse(l.timestamp));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      if (session.ended_at) expect(times[times.length - 1]).toBeLessThanOrEqual(Date.parse(session.ended_at));
      if (session.status === 'crashed') expect(lines.some((l) => l.level === 'FATAL')).toBe(true);
      if (session.status === 'abnormal') expect(session.ended_at).toBeUndefined();
    }
  });
});

describe('iterateDemoBatches', () => {
  it('streams exactly the whole project in bounded batches', () => {
    const whole = generateDemoProject({ ...options, size: 0.5 });
    const batches = [...iterateDemoBatches({ ...options, size: 0.5 }, 7)];
    expect(batches.length).toBe(Math.ceil(userCount(0.5) / 7));
    for (const b of batches) expect(b.users.length).toBeLessThanOrEqual(7);
    expect(batches.flatMap((b) => b.logs)).toEqual(whole.logs);
    expect(batches.flatMap((b) => b.sessions)).toEqual(whole.sessions);
    expect(batches.flatMap((b) => b.crashes)).toEqual(whole.crashes);
    expect(batches.flatMap((b) => b.events)).toEqual(whole.events);
    expect(batches.flatMap((b) => b.feedback)).toEqual(whole.feedback);
  });
});
