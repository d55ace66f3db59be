import { apmStatsOutput } from '@svc/tools-apm';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { seededRandom as random } from '../../testing/seeded-random';
import { reported } from '../precision';

// Expected answers are computed here, with plain loops, from the samples that were ingested.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 23 * 60_000;
const keyA: TestKey = { keyId: 'apm_key_a', projectId: 'apm_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'apm_key_b', projectId: 'apm_b', secret: 'secret-b-0123456789', active: true };

interface Sample {
  timestamp: string;
  name: string;
  value: number;
  unit?: string;
  session_id?: string;
}

const at = (ms: number) => new Date(ms).toISOString();

function samplesOf(seed: number, scale = 1): Sample[] {
  const rnd = random(seed);
  const out: Sample[] = [];
  // Startup times in steps of 100 ms: many ties in the ranks the percentiles fall between.
  for (let i = 0; i < 200; i++) {
    const value = scale * 100 * (3 + Math.floor(rnd() * 40));
    out.push({ timestamp: at(NOW - Math.floor(rnd() * 13 * DAY)), name: 'app_start_ms', value, unit: 'ms' });
  }
  // Frame rates with two spellings of the unit.
  for (let i = 0; i < 57; i++) {
    const value = scale * (20 + rnd() * 40);
    const unit = i % 3 === 0 ? 'frames/s' : 'fps';
    out.push({ timestamp: at(NOW - Math.floor(rnd() * 13 * DAY)), name: 'fps', value, unit });
  }
  // One sample: every percentile is that sample.
  out.push({ timestamp: at(NOW - 2 * HOUR), name: 'memory_mb', value: scale * 412.5, unit: 'MB' });
  // No unit sent at all; negative and fractional values.
  for (const value of [-2.5, 0.125, 7]) {
    out.push({ timestamp: at(NOW - 3 * DAY), name: 'battery_delta', value: scale * value });
  }
  // The window's edges: from is included, a millisecond before it is not; one sample only in the
  // 1-day window's edge case.
  out.push({ timestamp: at(NOW - 14 * DAY), name: 'edge', value: 1 });
  out.push({ timestamp: at(NOW - 14 * DAY - 1), name: 'edge', value: 1000 });
  out.push({ timestamp: at(NOW - 20 * DAY), name: 'old_only', value: 5 });
  out.push({ timestamp: at(NOW), name: 'edge', value: 3 });
  return out;
}

const A = samplesOf(11);
// Project B: the same metric names, values a million times larger. None may show up for A.
const B = samplesOf(11, 1e6);

/** numpy's default percentile: linear interpolation between the closest ranks. */
function percentile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function expected(samples: Sample[], days: number) {
  const from = NOW - days * DAY;
  const byName = new Map<string, Sample[]>();
  for (const s of samples) {
    const t = Date.parse(s.timestamp);
    if (t < from || t > NOW) continue;
    byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  }
  const names = [...byName.keys()].sort();
  return {
    window: { from: at(from), to: at(NOW) },
    metrics: names.map((name) => {
      const group = byName.get(name)!;
      const values = group.map((s) => s.value).sort((a, b) => a - b);
      const units = group
        .map((s) => s.unit)
        .filter((u): u is string => !!u)
        .sort();
      let sum = 0;
      for (const v of values) sum += v;
      return {
        name,
        unit: units[0] ?? null,
        count: values.length,
        avg: reported(sum / values.length),
        p50: reported(percentile(values, 0.5)),
        p95: reported(percentile(values, 0.95)),
        p99: reported(percentile(values, 0.99)),
        min: values[0],
        max: values[values.length - 1],
      };
    }),
  };
}

describe('apm.stats on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_apm_stats', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'metrics', A);
    await h.ingestAll(keyB, 'metrics', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function stats(input: unknown, project = 'apm_a') {
    const res = await h.callTool(project, 'apm.stats', input);
    expect(res.status).toBe(200);
    return apmStatsOutput.parse(res.body);
  }

  it('gives every metric of the window its count, average, exact percentiles, min and max', async () => {
    const body = await stats({});
    expect(body).toEqual(expected(A, 14));
    expect(body.metrics.map((m) => m.name)).toEqual([
      'app_start_ms',
      'battery_delta',
      'edge',
      'fps',
      'memory_mb',
    ]);
  });

  it('reports one sample as every percentile, the first unit by name, null when none was sent', async () => {
    const body = await stats({});
    const byName = Object.fromEntries(body.metrics.map((m) => [m.name, m]));
    expect(byName.memory_mb).toMatchObject({ count: 1, p50: 412.5, p95: 412.5, p99: 412.5, unit: 'MB' });
    expect(byName.fps?.unit).toBe('fps');
    expect(byName.battery_delta?.unit).toBeNull();
    // The window's start is inside it, a millisecond earlier is not.
    expect(byName.edge).toMatchObject({ count: 2, min: 1, max: 3 });
  });

  it('follows `days`, and answers an empty list for a project without samples', async () => {
    for (const days of [1, 3, 7, 30, 365]) expect(await stats({ days })).toEqual(expected(A, days));
    expect((await stats({}, 'apm_nobody')).metrics).toEqual([]);
  });

  it("keeps to the caller's project", async () => {
    // B's values are all a million times A's: none of them may reach A's answer.
    for (const m of (await stats({ days: 365 })).metrics) expect(Math.abs(m.max)).toBeLessThan(1e5);
    expect(await stats({ days: 365 }, 'apm_b')).toEqual(expected(B, 365));
  });

  it('refuses days outside 1..365 and unknown parameters with 400', async () => {
    for (const input of [{ days: 0 }, { days: 366 }, { name: 'fps' }]) {
      const res = await h.callTool('apm_a', 'apm.stats', input);
      expect(res.status).toBe(400);
    }
  });
});
