import { apmMemoryGrowthOutput } from '@svc/tools-apm';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';

// Expected answers are computed here, with plain loops (two-pass least squares), from the samples
// that were ingested.

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const keyA: TestKey = {
  keyId: 'apmm_key_a',
  projectId: 'apmm_a',
  secret: 'secret-a-0123456789',
  active: true,
};
const keyB: TestKey = {
  keyId: 'apmm_key_b',
  projectId: 'apmm_b',
  secret: 'secret-b-0123456789',
  active: true,
};

interface Sample {
  timestamp: string;
  name: string;
  value: number;
  session_id?: string;
  user_id?: string;
}

const at = (ms: number) => new Date(ms).toISOString();
const mem = (session: string | undefined, ms: number, value: number, user?: string): Sample => ({
  timestamp: at(ms),
  name: 'memory_mb',
  value,
  ...(session ? { session_id: session } : {}),
  ...(user ? { user_id: user } : {}),
});

function samplesOf(prefix: string): Sample[] {
  const out: Sample[] = [];
  const t0 = NOW - 2 * DAY;
  // Leaks of different steepness, with a little noise.
  for (let i = 0; i < 12; i++)
    out.push(mem(`${prefix}leak_slow`, t0 + i * 5 * MIN, 200 + 2 * i * 5 + (i % 3), 'u1'));
  for (let i = 0; i < 8; i++)
    out.push(mem(`${prefix}leak_fast`, t0 + i * 2 * MIN, 150 + 9.5 * i * 2 - (i % 2), 'u2'));
  // Constant memory: slope 0, r2 1 by definition.
  for (let i = 0; i < 5; i++) out.push(mem(`${prefix}flat`, t0 + i * MIN, 300, 'u3'));
  // Shrinking, irregular times; the user id changes: the latest one sent counts.
  [0, 1, 7, 30].forEach((m, i) => {
    out.push(mem(`${prefix}shrink`, t0 + m * MIN, 500 - i * 20 - (m % 5), i < 3 ? 'u4' : 'u5'));
  });
  // Too few samples; all at one instant; a session with no user.
  out.push(mem(`${prefix}two`, t0, 100), mem(`${prefix}two`, t0 + MIN, 900));
  for (const v of [10, 20, 30]) out.push(mem(`${prefix}instant`, t0, v));
  // Shared instants at both ends: first is the smallest of the earliest, last the largest of the latest.
  for (const [m, v] of [
    [0, 50],
    [0, 40],
    [3, 60],
    [6, 90],
    [6, 70],
  ] as const)
    out.push(mem(`${prefix}ties`, t0 + m * MIN, v));
  // Across the window's start (days 14): only the samples inside count.
  for (let i = 0; i < 6; i++)
    out.push(mem(`${prefix}edge`, NOW - 14 * DAY - 2 * MIN + i * MIN, 100 + i * i, 'u6'));
  // Not memory, or no session: never counted.
  for (let i = 0; i < 5; i++) out.push({ ...mem(`${prefix}leak_slow`, t0 + i * MIN, 9999), name: 'fps' });
  for (let i = 0; i < 5; i++) out.push(mem(undefined, t0 + i * MIN, 1000 * i));
  // Many small sessions, for limit and has_more.
  for (let s = 0; s < 30; s++) {
    for (let i = 0; i < 3; i++)
      out.push(mem(`${prefix}many${String(s).padStart(2, '0')}`, t0 + i * MIN, 100 + s * i * 0.1));
  }
  return out;
}

const A = samplesOf('');
const B = samplesOf('B-ONLY-');

function expected(samples: Sample[], days: number, limit: number) {
  const from = NOW - days * DAY;
  const sessions = new Map<string, Sample[]>();
  for (const s of samples) {
    const t = Date.parse(s.timestamp);
    if (s.name !== 'memory_mb' || !s.session_id || t < from || t > NOW) continue;
    sessions.set(s.session_id, [...(sessions.get(s.session_id) ?? []), s]);
  }
  const rows = [];
  for (const [session_id, group] of sessions) {
    if (group.length < 3) continue;
    const ts = group.map((s) => Date.parse(s.timestamp));
    const t0 = Math.min(...ts);
    const xs = ts.map((t) => (t - t0) / MIN);
    const ys = group.map((s) => s.value);
    const n = xs.length;
    let mx = 0;
    let my = 0;
    for (let i = 0; i < n; i++) {
      mx += xs[i]! / n;
      my += ys[i]! / n;
    }
    let sxx = 0;
    let syy = 0;
    let sxy = 0;
    for (let i = 0; i < n; i++) {
      sxx += (xs[i]! - mx) ** 2;
      syy += (ys[i]! - my) ** 2;
      sxy += (xs[i]! - mx) * (ys[i]! - my);
    }
    if (sxx === 0) continue;
    const order = group.map((s, i) => ({ t: ts[i]!, v: s.value, u: s.user_id }));
    const byTime = [...order].sort((a, b) => a.t - b.t || a.v - b.v);
    const withUser = order.filter((o) => o.u).sort((a, b) => a.t - b.t);
    rows.push({
      session_id,
      user_id: withUser.at(-1)?.u ?? null,
      samples: n,
      slope_mb_per_min: sxy / sxx,
      first_mb: byTime[0]!.v,
      last_mb: byTime.at(-1)!.v,
      r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy),
    });
  }
  rows.sort((a, b) => b.slope_mb_per_min - a.slope_mb_per_min || (a.session_id < b.session_id ? -1 : 1));
  return {
    window: { from: at(from), to: at(NOW) },
    items: rows.slice(0, limit),
    limit,
    has_more: rows.length > limit,
  };
}

/** Least squares in another order of summation: equal to ~12 significant digits. */
function expectClose(actual: ReturnType<typeof expected>, wanted: ReturnType<typeof expected>) {
  expect(actual.items.map((i) => i.session_id)).toEqual(wanted.items.map((i) => i.session_id));
  expect({ ...actual, items: [] }).toEqual({ ...wanted, items: [] });
  actual.items.forEach((item, i) => {
    const w = wanted.items[i]!;
    expect({ ...item, slope_mb_per_min: 0, r2: 0 }).toEqual({ ...w, slope_mb_per_min: 0, r2: 0 });
    for (const key of ['slope_mb_per_min', 'r2'] as const) {
      expect(Math.abs(item[key] - w[key])).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w[key])));
    }
  });
}

describe('apm.memory_growth on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_apm_memory', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'metrics', A);
    await h.ingestAll(keyB, 'metrics', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function growth(input: unknown, project = 'apmm_a') {
    const res = await h.callTool(project, 'apm.memory_growth', input);
    expect(res.status).toBe(200);
    return apmMemoryGrowthOutput.parse(res.body);
  }

  it('ranks sessions by least-squares slope, steepest first, against a plain-loop reference', async () => {
    const body = await growth({ limit: 1000 });
    expectClose(body, expected(A, 14, 1000));
    expect(JSON.stringify(body)).not.toContain('B-ONLY');
    expect(body.items[0]?.session_id).toBe('leak_fast');
  });

  it('defines the edge cases: constant memory, too few samples, one instant, ties, users', async () => {
    const items = Object.fromEntries((await growth({ limit: 1000 })).items.map((i) => [i.session_id, i]));
    expect(items.flat).toMatchObject({ slope_mb_per_min: 0, r2: 1, samples: 5, first_mb: 300, last_mb: 300 });
    expect(items.two).toBeUndefined();
    expect(items.instant).toBeUndefined();
    expect(items.ties).toMatchObject({ first_mb: 40, last_mb: 90, user_id: null });
    expect(items.shrink?.user_id).toBe('u5');
    expect(items.shrink!.slope_mb_per_min).toBeLessThan(0);
    // Two of the edge session's samples are before the window.
    expect(items.edge?.samples).toBe(4);
  });

  it('follows days and limit, with has_more', async () => {
    for (const [days, limit] of [
      [14, 20],
      [14, 3],
      [1, 20],
      [365, 5],
    ] as const) {
      expectClose(await growth({ days, limit }), expected(A, days, limit));
    }
    expect((await growth({ limit: 3 })).has_more).toBe(true);
    expect((await growth({}, 'apmm_nobody')).items).toEqual([]);
  });

  it('refuses out-of-range days and limits with 400', async () => {
    for (const input of [{ days: 0 }, { days: 366 }, { limit: 0 }, { limit: 1001 }, { name: 'x' }]) {
      expect((await h.callTool('apmm_a', 'apm.memory_growth', input)).status).toBe(400);
    }
  });
});
