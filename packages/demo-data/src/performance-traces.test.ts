import { generateDemoProject } from './generate';
import { LEAKY_RELEASE } from './performance';
import { SLOW_CHECKOUT, SLOW_START_RELEASE } from './session-story';
import { SERVICE_SAMPLE_RATES, SPAN_DAYS } from './traces';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const DAY = 24 * 60 * 60_000;
const demo = generateDemoProject({ seed: 20261122, size: 4, now: NOW, days: 30 });
const { spans, metrics, logs } = demo;
// Samples and traces come from the storied users' sessions only (the crowd sends no samples or spans).
const storied = new Set(demo.users.map((u) => u.user_id));
const sessions = demo.sessions.filter((s) => storied.has(s.user_id));

const median = (values: number[]) => {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)]!;
};

/** Least-squares slope of MB against minutes. */
function slope(points: { t: number; v: number }[]): number {
  const n = points.length;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const mv = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

describe('demo performance samples', () => {
  it('gives every session a cold start and at least 3 memory samples, all before now', () => {
    for (const s of sessions) {
      const mine = metrics.filter((m) => m.session_id === s.session_id);
      expect(mine.filter((m) => m.name === 'app_start_ms')).toHaveLength(1);
      expect(mine.filter((m) => m.name === 'memory_mb').length).toBeGreaterThanOrEqual(3);
    }
    expect(metrics.every((m) => Date.parse(m.timestamp) <= NOW)).toBe(true);
  });

  it('reports the cold start the launch line reports', () => {
    const launch = new Map(
      logs
        .filter((l) => l.message.startsWith('App launched'))
        .map((l) => [l.session_id, Number(/cold start (\d+) ms/.exec(l.message)![1])]),
    );
    for (const m of metrics.filter((m) => m.name === 'app_start_ms'))
      expect(m.value).toBe(launch.get(m.session_id));
  });

  it(`regressed startup in ${SLOW_START_RELEASE} only, and leaks memory in some ${LEAKY_RELEASE} sessions only`, () => {
    const starts = (v: string) =>
      metrics.filter((m) => m.name === 'app_start_ms' && m.app_version === v).map((m) => m.value);
    for (const v of ['2.3.0', '2.4.0', '2.4.1'])
      expect(median(starts(SLOW_START_RELEASE))).toBeGreaterThan(2 * median(starts(v)));
    const slopes = sessions.map((s) => ({
      version: s.app_version,
      slope: slope(
        metrics
          .filter((m) => m.session_id === s.session_id && m.name === 'memory_mb')
          .map((m) => ({ t: Date.parse(m.timestamp) / 60_000, v: m.value })),
      ),
    }));
    const leaking = slopes.filter((s) => s.slope > 2);
    expect(leaking.length).toBeGreaterThanOrEqual(5);
    expect(leaking.every((s) => s.version === LEAKY_RELEASE)).toBe(true);
    expect(leaking.length).toBeLessThan(slopes.filter((s) => s.version === LEAKY_RELEASE).length);
  });
});

describe('demo traces', () => {
  const traces = new Map<string, typeof spans>();
  for (const s of spans) traces.set(s.trace_id, [...(traces.get(s.trace_id) ?? []), s]);

  it('are W3C ids, inside the span retention, one trace per request of a recent session', () => {
    for (const s of spans) {
      expect(s.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(s.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(Date.parse(s.start_time)).toBeGreaterThanOrEqual(NOW - SPAN_DAYS * DAY);
    }
    const requestTraces = new Set(
      logs.filter((l) => l.source === 'device' && l.trace_id).map((l) => l.trace_id),
    );
    for (const id of traces.keys()) expect(requestTraces.has(id)).toBe(true);
  });

  it("carry the backend log line's span: the api-gateway span of the same trace", () => {
    const backend = logs.filter((l) => l.source === 'backend' && l.trace_id && traces.has(l.trace_id));
    expect(backend.length).toBeGreaterThan(100);
    for (const l of backend) {
      const span = traces.get(l.trace_id!)!.find((s) => s.span_id === l.span_id);
      expect(span?.service).toBe('api-gateway');
    }
  });

  it('sample payments at 0.25 but keep its errors; only spans under a sampled-out payments span are orphans', () => {
    const payments = spans.filter((s) => s.service === 'payments');
    expect(payments.every((s) => s.sample_rate === SERVICE_SAMPLE_RATES.payments)).toBe(true);
    expect(payments.some((s) => s.status === 'error')).toBe(true);
    const checkouts = spans.filter(
      (s) => s.service === 'checkout' && s.operation === 'checkout.create_order',
    );
    const share = payments.filter((s) => s.status === 'ok').length / checkouts.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.35);
    let orphans = 0;
    for (const group of traces.values()) {
      const ids = new Set(group.map((s) => s.span_id));
      for (const s of group) {
        if (!s.parent_span_id || ids.has(s.parent_span_id)) continue;
        orphans++;
        expect(s.service).toBe('card-vault');
      }
    }
    expect(orphans).toBeGreaterThan(20);
  });

  it(`slows ${SLOW_CHECKOUT.route} from ${SLOW_CHECKOUT.version} on, in the fraud check`, () => {
    const root = `POST ${SLOW_CHECKOUT.route}`;
    const durations = (recent: boolean) =>
      spans
        .filter((s) => s.operation === root && s.service === 'mobile-app' && s.status === 'ok')
        .filter((s) => Date.parse(s.start_time) >= NOW - 3 * DAY === recent)
        .map((s) => s.duration_ms);
    expect(median(durations(true))).toBeGreaterThan(2 * median(durations(false)));
    const fraud = (v: string) =>
      spans
        .filter((s) => s.operation === 'fraud.score')
        .filter(
          (s) =>
            sessions.find((x) => x.session_id === traces.get(s.trace_id)![0]!.session_id)?.app_version === v,
        )
        .map((s) => s.duration_ms);
    expect(median(fraud(SLOW_CHECKOUT.version))).toBeGreaterThan(10 * median(fraud('2.4.1')));
  });
});

describe('demo recall files', () => {
  it('come from device logs: one of a crashed session ending in its crash, one damaged, a pending recall elsewhere', async () => {
    const { generateDemoRecall } = await import('./recall-files');
    const recall = generateDemoRecall({ seed: 20261122, size: 1, now: NOW, days: 30 });
    expect(recall.files).toHaveLength(4);
    const [crash, ...rest] = recall.files;
    expect(crash!.file_name.startsWith('crash-')).toBe(true);
    expect(crash!.entries!.at(-2)!.level).toBe('FATAL');
    expect(rest.filter((f) => f.damagedText !== undefined)).toHaveLength(1);
    const users = recall.files.map((f) => f.user_id);
    expect(new Set(users).size).toBe(users.length);
    expect(users).not.toContain(recall.pending.user_id);
  });
});
