import { traceSearchOutput } from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { seededRandom } from '../../testing/seeded-random';

// Expected pages are computed here, with plain loops, from the spans that were ingested.

const SEC = 1000;
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const keyA: TestKey = { keyId: 'ts_key_a', projectId: 'ts_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'ts_key_b', projectId: 'ts_b', secret: 'secret-b-0123456789', active: true };

interface Span {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  kind: string;
  status: 'ok' | 'error' | 'unset';
  operation: string;
  service?: string;
  start_time: string;
  duration_ms: number;
  user_id?: string;
  session_id?: string;
  sample_rate?: number;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const OPERATIONS = ['GET /checkout', 'GET /home', 'POST /pay'];
const SERVICES = ['mobile', 'gateway', 'checkout', 'payments', 'db'];

function spansOf(marker: string): Span[] {
  const rnd = seededRandom(marker ? 2 : 1);
  const spans: Span[] = [];
  for (let t = 0; t < 60; t++) {
    const trace_id = hex(t + 1, 32);
    // Pairs of traces start at the same instant: ordered by trace id.
    const t0 = NOW - Math.floor(t / 2) * 60 * SEC;
    const user = t % 3 === 0 ? undefined : `u${t % 4}`;
    const session = t % 5 === 0 ? undefined : `s${t % 6}`;
    const n = 1 + (t % 5);
    for (let s = 0; s < n; s++) {
      // Ids from 1: an all-zero id is W3C's invalid id, refused at ingest.
      const parent = s === 0 ? undefined : hex(t * 16 + Math.floor((s - 1) / 2) + 1, 16);
      spans.push({
        trace_id,
        span_id: hex(t * 16 + s + 1, 16),
        // Every 7th trace lost its root: its first span names a parent that never arrived.
        ...(parent ? { parent_span_id: parent } : t % 7 === 3 ? { parent_span_id: 'feedfacefeedface' } : {}),
        kind: s === 0 ? 'server' : 'internal',
        status: t % 4 === 1 && s === n - 1 ? 'error' : s === 2 ? 'unset' : 'ok',
        operation: s === 0 ? `${OPERATIONS[t % 3]!}${marker}` : `step ${s}`,
        ...(s === 0 && t % 9 === 4 ? {} : { service: SERVICES[(t + s) % 5]! }),
        start_time: new Date(t0 + s * 10 + Math.floor(rnd() * 5)).toISOString(),
        duration_ms: Math.round(rnd() * 2000 * 100) / 100,
        ...(user && s === n - 1 ? { user_id: user } : {}),
        ...(session && s === 0 ? { session_id: session } : {}),
      });
    }
  }
  // A cycle: each span names the other as parent. The earliest becomes the root, not an orphan.
  const cycle = hex(999, 32);
  spans.push(
    {
      trace_id: cycle,
      span_id: 'aaaaaaaaaaaaaaaa',
      parent_span_id: 'bbbbbbbbbbbbbbbb',
      kind: 'server',
      status: 'ok',
      operation: `loop${marker}`,
      start_time: new Date(NOW - 90 * 60 * SEC).toISOString(),
      duration_ms: 5,
    },
    {
      trace_id: cycle,
      span_id: 'bbbbbbbbbbbbbbbb',
      parent_span_id: 'aaaaaaaaaaaaaaaa',
      kind: 'server',
      status: 'ok',
      operation: `loop2${marker}`,
      start_time: new Date(NOW - 90 * 60 * SEC + 1).toISOString(),
      duration_ms: 50,
    },
  );
  return spans;
}

const A = spansOf('');
const B = spansOf(' B-ONLY');

interface Expected {
  trace_id: string;
  started_at: string;
  duration_ms: number;
  span_count: number;
  error: boolean;
  root_operation: string;
  root_service: string | null;
  root_orphan: boolean;
  services: string[];
}

function summaries(spans: Span[]): (Expected & { users: Set<string>; sessions: Set<string> })[] {
  const traces = new Map<string, Span[]>();
  for (const s of spans) traces.set(s.trace_id, [...(traces.get(s.trace_id) ?? []), s]);
  const out = [];
  for (const [trace_id, group] of traces) {
    const ids = new Set(group.map((s) => s.span_id));
    const start = (s: Span) => Date.parse(s.start_time);
    const ordered = [...group].sort((a, b) => start(a) - start(b) || (a.span_id < b.span_id ? -1 : 1));
    const roots = ordered.filter((s) => !s.parent_span_id || !ids.has(s.parent_span_id));
    const root = roots[0] ?? ordered[0]!;
    const first = Math.min(...group.map(start));
    const last = Math.max(...group.map((s) => start(s) + s.duration_ms));
    out.push({
      trace_id,
      started_at: new Date(first).toISOString(),
      duration_ms: Math.round((last - first) * 1000) / 1000,
      span_count: group.length,
      error: group.some((s) => s.status === 'error'),
      root_operation: root.operation,
      root_service: root.service ?? null,
      root_orphan: !!root.parent_span_id && !ids.has(root.parent_span_id),
      services: [...new Set(group.map((s) => s.service).filter((s): s is string => !!s))].sort(),
      users: new Set(group.map((s) => s.user_id).filter((u): u is string => !!u)),
      sessions: new Set(group.map((s) => s.session_id).filter((u): u is string => !!u)),
    });
  }
  return out.sort(
    (a, b) => Date.parse(b.started_at) - Date.parse(a.started_at) || (a.trace_id < b.trace_id ? -1 : 1),
  );
}

const iso = (ms: number) => new Date(ms).toISOString();
const started = (t: { started_at: string }) => Date.parse(t.started_at);

function expected(keep: (t: ReturnType<typeof summaries>[number]) => boolean, limit = 50) {
  const all = summaries(A).filter(keep);
  return {
    items: all.slice(0, limit).map(({ users: _u, sessions: _s, ...t }) => t),
    limit,
    has_more: all.length > limit,
    ...(all.length > limit ? { next_cursor: expect.any(String) } : {}),
  };
}

describe('trace.search on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_search', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'spans', A);
    await h.ingestAll(keyB, 'spans', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function search(input: unknown) {
    const res = await h.callTool('ts_a', 'trace.search', input);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('B-ONLY');
    return traceSearchOutput.parse(res.body);
  }

  it('summarizes each trace from all its spans, newest first, default limit 50', async () => {
    expect(await search({})).toEqual(expected(() => true));
    expect(await search({ limit: 1000 })).toEqual(expected(() => true, 1000));
  });

  it('finds the root of a trace that lost it, and of one whose spans name each other', async () => {
    const items = (await search({ limit: 1000 })).items;
    const orphaned = items.find((t) => t.trace_id === hex(4, 32));
    expect(orphaned).toMatchObject({ root_orphan: true, root_operation: 'GET /checkout' });
    expect(items.find((t) => t.trace_id === hex(999, 32))).toMatchObject({
      root_operation: 'loop',
      root_orphan: false,
    });
  });

  it.each([
    [{ user_id: 'u1' }, (t: ReturnType<typeof summaries>[number]) => t.users.has('u1')],
    [{ session_id: 's2' }, (t: ReturnType<typeof summaries>[number]) => t.sessions.has('s2')],
    [{ status: 'error' }, (t: ReturnType<typeof summaries>[number]) => t.error],
    [{ status: 'ok' }, (t: ReturnType<typeof summaries>[number]) => !t.error],
    [
      { operation: 'POST /pay' },
      (t: ReturnType<typeof summaries>[number]) => t.root_operation === 'POST /pay',
    ],
    [{ operation: 'post /pay' }, () => false],
    [{ min_duration_ms: 1000 }, (t: ReturnType<typeof summaries>[number]) => t.duration_ms >= 1000],
    [
      { user_id: 'u2', status: 'error', min_duration_ms: 10 },
      (t: ReturnType<typeof summaries>[number]) => t.users.has('u2') && t.error && t.duration_ms >= 10,
    ],
    [{ max_duration_ms: 500 }, (t: ReturnType<typeof summaries>[number]) => t.duration_ms <= 500],
    [
      { min_duration_ms: 100, max_duration_ms: 900 },
      (t: ReturnType<typeof summaries>[number]) => t.duration_ms >= 100 && t.duration_ms <= 900,
    ],
    // Just after a pair of traces began: they have spans after `from`, but started before it.
    [
      { from: iso(NOW - 10 * 60 * SEC + 3) },
      (t: ReturnType<typeof summaries>[number]) => started(t) >= NOW - 10 * 60 * SEC + 3,
    ],
    [
      { to: iso(NOW - 20 * 60 * SEC) },
      (t: ReturnType<typeof summaries>[number]) => started(t) < NOW - 20 * 60 * SEC,
    ],
    [
      { from: iso(NOW - 25 * 60 * SEC), to: iso(NOW - 5 * 60 * SEC + 3), status: 'ok' },
      (t: ReturnType<typeof summaries>[number]) =>
        started(t) >= NOW - 25 * 60 * SEC && started(t) < NOW - 5 * 60 * SEC + 3 && !t.error,
    ],
    [{ from: iso(NOW + 86_400_000) }, () => false],
  ])('filters %p', async (input, keep) => {
    expect(await search({ ...input, limit: 1000 })).toEqual(expected(keep, 1000));
  });

  it('refuses a bad status, a negative duration, a bad window and unknown parameters with 400', async () => {
    for (const input of [
      { status: 'failed' },
      { min_duration_ms: -1 },
      { max_duration_ms: -1 },
      { trace_id: hex(1, 32) },
      { from: 'yesterday' },
      { from: '2026-11-20' },
      { from: iso(NOW), to: iso(NOW) },
      { from: iso(NOW), to: iso(NOW - SEC) },
    ]) {
      expect((await h.callTool('ts_a', 'trace.search', input)).status).toBe(400);
    }
  });
});
