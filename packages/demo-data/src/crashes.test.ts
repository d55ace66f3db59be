import { CART_FIX_RELEASE, CRASH_ISSUES, RISK_SDK_RELEASE } from './crash-issues';
import { crashChance } from './crashes';
import { type DemoCrash, type DemoProject, generateDemoProject } from './index';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const DAYS = 14;

const issueOf = (c: DemoCrash) => `${c.error_type}|${c.message}`;
const olderThan = (version: string, than: string) => {
  const [a, b] = [version, than].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (a![i] !== b![i]) return a![i]! < b![i]!;
  return false;
};

// Two seeds, so the properties hold for the model rather than for one lucky draw.
describe.each([42, 7])('demo crashes (seed %i)', (seed) => {
  const project: DemoProject = generateDemoProject({ seed, size: 2, now: NOW, days: DAYS });
  const { crashes, sessions } = project;
  const counts = new Map<string, number>();
  for (const c of crashes) counts.set(issueOf(c), (counts.get(issueOf(c)) ?? 0) + 1);
  const ranked = [...counts.values()].sort((a, b) => b - a);

  it('has a few dominant issues and a long tail', () => {
    expect(crashes.length).toBeGreaterThan(60);
    // A handful of issues (two per platform at most) make most of the crashes.
    const top5 = ranked.slice(0, 5).reduce((s, n) => s + n, 0);
    expect(top5 / crashes.length).toBeGreaterThanOrEqual(0.6);
    expect(ranked[0]! / crashes.length).toBeLessThan(0.4);
    const tail = ranked.filter((n) => n / crashes.length < 0.05);
    expect(tail.length).toBeGreaterThanOrEqual(8);
  });

  it('never shows the fixed issue at or after its fix release, though it was frequent before', () => {
    const fixed = crashes.filter((c) => c.error_type === 'NSInvalidArgumentException');
    expect(fixed.length).toBeGreaterThanOrEqual(3);
    for (const c of fixed) expect(olderThan(c.app_version, CART_FIX_RELEASE)).toBe(true);
    // The fixed releases did run and crash in other ways, so the absence means something.
    const newer = crashes.filter((c) => c.platform === 'ios' && !olderThan(c.app_version, CART_FIX_RELEASE));
    expect(newer.length).toBeGreaterThan(5);
  });

  it('crashes sessions at the summed rates per 10,000 sessions of the issues each version can have', () => {
    // Per (platform, version, quiet spell or not): observed crashes against sessions x the summed rates.
    const groups = new Map<string, { sessions: number; expected: number; crashed: number }>();
    for (const s of sessions) {
      const atMs = Date.parse(s.started_at);
      const scene = { platform: s.platform, appVersion: s.app_version, atMs, nowMs: NOW, days: DAYS };
      const chance = crashChance(scene);
      const key = `${s.platform}|${s.app_version}|${chance}`;
      const g = groups.get(key) ?? { sessions: 0, expected: 0, crashed: 0 };
      g.sessions += 1;
      g.expected += chance;
      if (s.status === 'crashed') g.crashed += 1;
      groups.set(key, g);
    }
    const large = [...groups.values()].filter((g) => g.expected >= 20);
    expect(large.length).toBeGreaterThanOrEqual(4);
    // Poisson: 4 standard deviations either side.
    for (const g of large)
      expect(Math.abs(g.crashed - g.expected)).toBeLessThan(4 * Math.sqrt(g.expected) + 1);
    // A shop's volume: dozens of crashes a day over thousands of sessions, 98.5-99.5% of them crash-free.
    const crashFree = 1 - crashes.length / sessions.length;
    expect(crashFree).toBeGreaterThan(0.985);
    expect(crashFree).toBeLessThan(0.995);
    expect(crashes.length / DAYS).toBeGreaterThan(10);
  });

  it(`brings the risk SDK's crash in with ${RISK_SDK_RELEASE}, never before`, () => {
    const risk = CRASH_ISSUES.find((i) => i.introducedIn !== undefined)!;
    expect(risk.introducedIn).toBe(RISK_SDK_RELEASE);
    const hits = crashes.filter((c) => c.error_type === risk.error_type);
    expect(hits.length).toBeGreaterThanOrEqual(3);
    for (const c of hits) expect(olderThan(c.app_version, RISK_SDK_RELEASE)).toBe(false);
    // The older releases ran on Android and crashed there in other ways.
    expect(
      crashes.filter((c) => c.platform === 'android' && olderThan(c.app_version, RISK_SDK_RELEASE)).length,
    ).toBeGreaterThan(20);
  });

  it('has one issue that stops for days while others go on, then comes back', () => {
    const times = crashes
      .filter((c) => c.error_type === 'java.lang.IllegalStateException')
      .map((c) => Date.parse(c.timestamp))
      .sort((a, b) => a - b);
    let gapStart = 0;
    let gap = 0;
    for (let i = 1; i < times.length; i++) {
      if (times[i]! - times[i - 1]! > gap) [gap, gapStart] = [times[i]! - times[i - 1]!, times[i - 1]!];
    }
    expect(gap).toBeGreaterThan(0.3 * DAYS * DAY);
    const during = crashes.filter((c) => {
      const t = Date.parse(c.timestamp);
      return c.platform === 'android' && t > gapStart && t < gapStart + gap;
    });
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(times.filter((t) => t <= gapStart).length).toBeGreaterThanOrEqual(2);
    expect(times.filter((t) => t >= gapStart + gap).length).toBeGreaterThanOrEqual(2);
  });

  it('covers ios, android and web with their device_os, signed and unsigned crashes', () => {
    const osPattern = { ios: /^iOS \d/, android: /^Android \d/, web: /^(Chrome|Safari|Firefox) \d/ };
    expect(new Set(crashes.map((c) => c.platform))).toEqual(new Set(['ios', 'android', 'web']));
    for (const c of crashes) expect(c.device_os).toMatch(osPattern[c.platform]);
    const signed = crashes.filter((c) => c.signature !== undefined);
    expect(signed.length).toBeGreaterThan(0);
    expect(signed.length).toBeLessThan(crashes.length);
    for (const c of signed) expect(c.signature).toMatch(/^[0-9a-f]{16}$/);
    // An issue is either always signed by its SDK or never, with one value: issues never split.
    const byIssue = new Map<string, Set<string | undefined>>();
    for (const c of crashes) byIssue.set(issueOf(c), (byIssue.get(issueOf(c)) ?? new Set()).add(c.signature));
    for (const values of byIssue.values()) expect(values.size).toBe(1);
  });

  it('frames are raw: minified web positions, native addresses in a module', () => {
    for (const c of crashes) {
      expect(c.frames.length).toBeGreaterThan(0);
      for (const f of c.frames) {
        if (c.platform === 'web') {
          expect(f.file).toMatch(/^https:\/\/shop\.example\/static\/\w+\.min\.js$/);
          expect(f.function).toMatch(/^[A-Za-z]{1,2}$/);
          expect(f.column).toBeGreaterThan(0);
        }
        if (f.address !== undefined) {
          expect(f.address).toMatch(/^0x[0-9a-f]+$/);
          expect(f.module).toBeTruthy();
        }
      }
    }
    const native = crashes.filter(
      (c) => c.platform === 'ios' || c.frames.some((f) => f.module === 'libshop.so'),
    );
    expect(native.length).toBeGreaterThan(0);
    for (const c of native) expect(c.frames.some((f) => f.in_app && f.address)).toBe(true);
  });

  it('has breadcrumbs leading up to each crash, from its own session', () => {
    const logsOf = new Map<string, typeof project.logs>();
    for (const l of project.logs)
      if (l.session_id) logsOf.set(l.session_id, [...(logsOf.get(l.session_id) ?? []), l]);
    const seen = new Set<string>();
    for (const c of crashes) {
      const sessionLogs = logsOf.get(c.session_id!) ?? [];
      expect(c.breadcrumbs.length).toBeGreaterThan(0);
      const times = c.breadcrumbs.map((b) => Date.parse(b.timestamp));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      for (const t of times) expect(t).toBeLessThan(Date.parse(c.timestamp));
      for (const b of c.breadcrumbs) {
        seen.add(b.category);
        if (b.category !== 'http') continue;
        // Each http breadcrumb is a request the session logged at that very moment.
        const [, method, route, status, ms] = /^(\w+) (\S+) -> (\d+) \((\d+) ms\)$/.exec(b.message)!;
        const logged = sessionLogs.some(
          (l) =>
            l.source === 'device' &&
            l.timestamp === b.timestamp &&
            l.message === `${method} ${route} -> ${status} in ${ms} ms`,
        );
        expect(logged).toBe(true);
      }
    }
    // http breadcrumbs come from the storied users' sessions (a crowd user's crash has no requests).
    for (const category of ['navigation', 'ui', 'console']) expect(seen.has(category)).toBe(true);
  });

  it('marks exactly the sessions with a crash as crashed, and the crash happens inside them', () => {
    const bySession = new Map(sessions.map((s) => [s.session_id, s]));
    const crashedIds = new Set<string>();
    for (const c of crashes) {
      const s = bySession.get(c.session_id!)!;
      expect(s).toBeDefined();
      expect(crashedIds.has(s.session_id)).toBe(false);
      crashedIds.add(s.session_id);
      expect([s.status, s.user_id, s.platform, s.app_version]).toEqual([
        'crashed',
        c.user_id,
        c.platform,
        c.app_version,
      ]);
      expect(Date.parse(c.timestamp)).toBeGreaterThanOrEqual(Date.parse(s.started_at));
      expect(Date.parse(c.timestamp)).toBeLessThanOrEqual(Date.parse(s.ended_at!));
    }
    expect(
      sessions
        .filter((s) => s.status === 'crashed')
        .map((s) => s.session_id)
        .sort(),
    ).toEqual([...crashedIds].sort());
    expect(new Set(sessions.map((s) => s.status))).toEqual(new Set(['ok', 'crashed', 'anr', 'abnormal']));
    const ok = sessions.filter((s) => s.status === 'ok').length / sessions.length;
    expect(ok).toBeGreaterThan(0.8);
  });
});
