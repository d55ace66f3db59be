import { releaseHealthOutput } from '@svc/tools-apm';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// Expected answers are computed here, with plain loops and the formula of docs/semantics.md
// written out again, from the records that were ingested.

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const keyA: TestKey = { keyId: 'rh_key_a', projectId: 'rh_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'rh_key_b', projectId: 'rh_b', secret: 'secret-b-0123456789', active: true };

type Status = 'ok' | 'crashed' | 'anr' | 'abnormal';
interface SessionIn {
  session_id: string;
  user_id: string;
  started_at: string;
  status: Status;
  platform: string;
  app_version: string;
}
interface MetricIn {
  timestamp: string;
  name: string;
  value: number;
  app_version?: string;
}

const at = (ms: number) => new Date(ms).toISOString();

function dataOf(prefix: string) {
  const sessions: SessionIn[] = [];
  const metrics: MetricIn[] = [];
  const session = (version: string, i: number, status: Status, startedMs = NOW - (i % 10) * DAY - MIN) =>
    sessions.push({
      session_id: `${prefix}${version}-s${i}`,
      user_id: `u${i % 7}`,
      started_at: at(startedMs),
      status,
      platform: 'ios',
      app_version: version,
    });
  const metric = (version: string, name: string, value: number, ms = NOW - 3 * DAY) =>
    metrics.push({ timestamp: at(ms), name, value, app_version: version });
  // 1.0: healthy. 2.0: crashes, ANRs and a startup regression. 3.0: sessions only. 4.0: metrics only.
  for (let i = 0; i < 100; i++) session('1.0', i, i === 50 ? 'abnormal' : 'ok');
  for (let i = 0; i < 50; i++) session('2.0', i, i < 8 ? 'crashed' : i < 10 ? 'anr' : 'ok');
  for (let i = 0; i < 20; i++) session('3.0', i, i < 1 ? 'anr' : 'ok');
  // Started before the window (14 days): not counted.
  for (let i = 0; i < 30; i++) session('2.0', 100 + i, 'ok', NOW - 15 * DAY);
  for (let i = 0; i < 40; i++) {
    metric('1.0', 'app_start_ms', 800 + ((i * 37) % 500));
    metric('1.0', 'fps', 55 + (i % 5));
    metric('2.0', 'app_start_ms', 2500 + ((i * 53) % 2000));
    metric('2.0', 'fps', 40 + (i % 9));
    metric('4.0', 'app_start_ms', 1200 + i * 10);
  }
  // Outside the window, another metric, another version: not counted.
  metric('1.0', 'app_start_ms', 99_999, NOW - 20 * DAY);
  metric('1.0', 'memory_mb', 99_999);
  metric('9.9', 'fps', 1);
  return { sessions, metrics };
}

const A = dataOf('');
const B = dataOf('B-ONLY-');

const clamp = (x: number) => Math.min(1, Math.max(0, x));
function p95(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const h = (v.length - 1) * 0.95;
  const lo = Math.floor(h);
  return v[lo]! + (h - lo) * (v[Math.min(lo + 1, v.length - 1)]! - v[lo]!);
}

function expectedRelease(version: string, days: number) {
  const from = NOW - days * DAY;
  const inWindow = (iso: string) => Date.parse(iso) >= from && Date.parse(iso) <= NOW;
  const sessions = A.sessions.filter((s) => s.app_version === version && inWindow(s.started_at));
  const samples = (name: string) =>
    A.metrics
      .filter((m) => m.app_version === version && m.name === name && inWindow(m.timestamp))
      .map((m) => m.value);
  const starts = samples('app_start_ms');
  const fps = samples('fps');
  const n = sessions.length;
  const cfr = n ? sessions.filter((s) => s.status !== 'crashed').length / n : null;
  const anr = n ? sessions.filter((s) => s.status === 'anr').length / n : null;
  const startup = starts.length ? p95(starts) : null;
  const fpsAvg = fps.length ? fps.reduce((a, b) => a + b, 0) / fps.length : null;
  const components = {
    crash_free: cfr === null ? null : clamp((cfr - 0.9) / 0.095),
    anr: anr === null ? null : clamp(1 - anr / 0.02),
    startup: startup === null ? null : clamp((4000 - startup) / 3000),
    fps: fpsAvg === null ? null : clamp((fpsAvg - 30) / 28),
  };
  const weights = { crash_free: 0.5, anr: 0.2, startup: 0.15, fps: 0.15 };
  let w = 0;
  let sum = 0;
  for (const [k, value] of Object.entries(components)) {
    if (value === null) continue;
    w += weights[k as keyof typeof weights];
    sum += weights[k as keyof typeof weights] * value;
  }
  const score = w ? (100 * sum) / w : null;
  const grade =
    score === null
      ? null
      : score >= 90
        ? 'A'
        : score >= 80
          ? 'B'
          : score >= 70
            ? 'C'
            : score >= 60
              ? 'D'
              : 'F';
  return {
    version,
    found: n > 0 || starts.length > 0 || fps.length > 0,
    sessions: n,
    crash_free_session_rate: cfr,
    anr_rate: anr,
    startup_p95_ms: startup,
    fps_avg: fpsAvg,
    components,
    score,
    grade,
  };
}

type Release = ReturnType<typeof expectedRelease>;
const NUMBERS = ['crash_free_session_rate', 'anr_rate', 'startup_p95_ms', 'fps_avg', 'score'] as const;

/** Equal, numbers to 12 significant digits (they are reported to 13). */
function expectRelease(actual: Release, wanted: Release) {
  const close = (a: number | null, b: number | null) => {
    if (b === null) return expect(a).toBeNull();
    expect(Math.abs(a! - b)).toBeLessThanOrEqual(1e-11 * Math.max(1, Math.abs(b)));
  };
  for (const key of NUMBERS) close(actual[key], wanted[key]);
  for (const key of Object.keys(wanted.components) as (keyof Release['components'])[]) {
    close(actual.components[key], wanted.components[key]);
  }
  const strip = (r: Release) => ({ ...r, ...Object.fromEntries(NUMBERS.map((k) => [k, 0])), components: {} });
  expect(strip(actual)).toEqual(strip(wanted));
}

describe('release.health on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_release_health', NOW, [keyA, keyB]);
    for (const [key, data] of [
      [keyA, A],
      [keyB, B],
    ] as const) {
      await h.ingestAll(key, 'sessions', data.sessions);
      await h.ingestAll(key, 'metrics', data.metrics);
    }
    // A session reported again later: its last status counts, and it counts once.
    await h.ingestAll(keyA, 'sessions', [{ ...A.sessions[10]!, status: 'crashed' }]);
    A.sessions[10] = { ...A.sessions[10]!, status: 'crashed' };
  });
  afterAll(async () => {
    await h.close();
  });

  async function health(input: unknown) {
    const res = await h.callTool('rh_a', 'release.health', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return releaseHealthOutput.parse(res.body);
  }

  it('scores versions side by side, in the order asked, against the formula written out', async () => {
    const versions = ['2.0', '1.0', '3.0', '4.0', '5.0'];
    const body = await health({ versions });
    expect(body.window).toEqual({ from: at(NOW - 14 * DAY), to: at(NOW) });
    expect(body.releases.map((r) => r.version)).toEqual(versions);
    body.releases.forEach((r, i) => {
      expectRelease(r as Release, expectedRelease(versions[i]!, 14));
    });
  });

  it('grades the healthy release A and the regressed one C or worse; a version without data is found: false', async () => {
    const [bad, good, sessionsOnly, metricsOnly, none] = (
      await health({ versions: ['2.0', '1.0', '3.0', '4.0', '5.0'] })
    ).releases;
    expect(good?.grade).toBe('A');
    expect(['C', 'D', 'F']).toContain(bad?.grade);
    expect(sessionsOnly).toMatchObject({ found: true, startup_p95_ms: null, fps_avg: null });
    expect(sessionsOnly?.components).toMatchObject({ startup: null, fps: null });
    expect(metricsOnly).toMatchObject({
      found: true,
      sessions: 0,
      crash_free_session_rate: null,
      anr_rate: null,
    });
    expect(none).toMatchObject({ version: '5.0', found: false, sessions: 0, score: null, grade: null });
  });

  it('takes one version, follows days, and lists a repeated version once', async () => {
    expectRelease((await health({ version: '1.0' })).releases[0] as Release, expectedRelease('1.0', 14));
    expectRelease(
      (await health({ version: '2.0', days: 30 })).releases[0] as Release,
      expectedRelease('2.0', 30),
    );
    expect((await health({ versions: '1.0,1.0, 2.0 ' })).releases.map((r) => r.version)).toEqual([
      '1.0',
      '2.0',
    ]);
  });

  // versions is comma-separated: items trimmed, repeats listed once where first named.
  it('reads comma-separated versions, each scored as when asked alone, in the order asked', async () => {
    const text = ' 3.0 ,2.0,1.0,2.0,  5.0';
    const asked = ['3.0', '2.0', '1.0', '5.0'];
    const body = await health({ versions: text, days: 30 });
    expect(body.releases.map((r) => r.version)).toEqual(asked);
    body.releases.forEach((r, i) => {
      expectRelease(r as Release, expectedRelease(asked[i]!, 30));
    });
  });

  it('still reads an array of versions as the same list', async () => {
    expect(await health({ versions: ['2.0', '1.0', '2.0'] })).toEqual(await health({ versions: '2.0,1.0' }));
  });

  it('says what is wrong with a version list, in sentences', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `v${i}`).join(',');
    for (const [input, expected] of [
      [{ versions: '1.0,,2.0' }, 'versions must not have an empty version'],
      [{ versions: eleven }, 'versions must list at most 10 versions (a repeated one counts once), got 11'],
      [{ versions: `1.0,${'9'.repeat(101)}` }, 'versions must list versions of at most 100 characters each'],
      [{}, 'version is required when versions is not given'],
      [{ version: '1.0', versions: '2.0' }, 'versions must not be given together with version'],
    ] as const) {
      const res = await h.callTool('rh_a', 'release.health', input);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`Invalid input for release.health: ${expected}`);
    }
  });

  it('refuses neither or both of version and versions, more than 10, and empty ones with 400', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `v${i}`);
    for (const input of [
      {},
      { version: '1.0', versions: '2.0' },
      { versions: eleven.join(',') },
      { versions: '' },
      { versions: [] },
      { version: ' ' },
    ]) {
      const res = await h.callTool('rh_a', 'release.health', input);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_input');
    }
  });
});
