import {
  CRITICAL_PATH_MAX_STEPS,
  TRACE_GET_DEFAULT_SPANS,
  type TraceSpanNode,
  traceGetOutput,
  traceSearchOutput,
} from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { type OtlpTestSpan, postOtlpTraces } from '../../testing/otlp-spans';

// One trace of 10,000 spans (one OTLP/JSON request) among small ones: every list of the project
// must still answer, each at the cost of its page. Expected answers are computed here, with plain
// loops, from the spans that were sent.

const SEC = 1000;
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const key: TestKey = { keyId: 'tl_key', projectId: 'tl_p', secret: 'tl-secret-0123456789', active: true };

const BIG_SPANS = 10_000;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const BIG = hex(0xb16, 32);

type Span = OtlpTestSpan;

/**
 * The large trace: a binary tree under span 0 ('GET /big'), over seven services, one span failed.
 * Its last span starts 5 ms before the root (a skewed clock): the earliest span is not the root.
 */
const bigTrace: Span[] = Array.from({ length: BIG_SPANS }, (_, i) => ({
  trace_id: BIG,
  span_id: hex(0x10000 + i, 16),
  ...(i === 0 ? {} : { parent_span_id: hex(0x10000 + Math.floor((i - 1) / 2), 16) }),
  operation: i === 0 ? 'GET /big' : `step ${i % 13}`,
  service: `svc-${i % 7}`,
  status: i === 4321 ? 'error' : 'ok',
  start_ms: NOW - 75 * SEC + (i === BIG_SPANS - 1 ? -5 : i),
  duration_ms: i === 0 ? 12_000.5 : (i % 50) + 0.25,
}));

/**
 * Small traces, one every 30 s from NOW back. Trace 2 lost its root (its earliest span names a
 * parent that never arrived); in trace 5 a child named like a root starts before its parent.
 */
const smallTraces: Span[] = Array.from({ length: 8 }, (_, t) => {
  const trace_id = hex(t + 1, 32);
  const t0 = NOW - SEC - t * 30 * SEC;
  return Array.from({ length: 3 }, (_, s): Span => {
    const parent = s === 0 ? (t === 2 ? 'feedfacefeedface' : undefined) : hex(t * 16 + 1, 16);
    return {
      trace_id,
      span_id: hex(t * 16 + s + 1, 16),
      ...(parent ? { parent_span_id: parent } : {}),
      operation: s === 0 ? 'GET /small' : t === 5 && s === 2 ? 'GET /big' : `step ${s}`,
      service: ['web', 'api', 'db'][s]!,
      status: t === 3 && s === 1 ? 'error' : 'ok',
      start_ms: t0 + (t === 5 && s === 2 ? -3 : s * 10),
      duration_ms: 100 + t * 10 + s,
    };
  });
}).flat();

const ALL = [...bigTrace, ...smallTraces];

function summaries(spans: readonly Span[]) {
  const traces = new Map<string, Span[]>();
  for (const s of spans) {
    const group = traces.get(s.trace_id);
    if (group) group.push(s);
    else traces.set(s.trace_id, [s]);
  }
  const out = [];
  for (const [trace_id, group] of traces) {
    const ids = new Set(group.map((s) => s.span_id));
    const ordered = [...group].sort((a, b) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : 1));
    const root = ordered.find((s) => !s.parent_span_id || !ids.has(s.parent_span_id)) ?? (ordered[0] as Span);
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const s of group) {
      first = Math.min(first, s.start_ms);
      last = Math.max(last, s.start_ms + s.duration_ms);
    }
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
    });
  }
  return out.sort(
    (a, b) => Date.parse(b.started_at) - Date.parse(a.started_at) || (a.trace_id < b.trace_id ? -1 : 1),
  );
}

const micro = (ms: number) => Math.round(ms * 1000) / 1000;

function childrenOf(spans: readonly Span[]): Map<string, Span[]> {
  const out = new Map<string, Span[]>();
  for (const s of spans) {
    if (!s.parent_span_id) continue;
    const siblings = out.get(s.parent_span_id);
    if (siblings) siblings.push(s);
    else out.set(s.parent_span_id, [s]);
  }
  return out;
}

/** A span's time not covered by its children: its interval less their merged, clipped intervals. */
function selfOf(s: Span, children: readonly Span[]): number {
  const end = s.start_ms + s.duration_ms;
  const parts = children
    .map((c) => [Math.max(s.start_ms, c.start_ms), Math.min(end, c.start_ms + c.duration_ms)])
    .filter(([a, b]) => b! > a!)
    .sort((x, y) => x[0]! - y[0]!);
  const merged: number[][] = [];
  for (const [a, b] of parts) {
    const last = merged.at(-1);
    if (last && a! <= last[1]!) last[1] = Math.max(last[1]!, b!);
    else merged.push([a!, b!]);
  }
  return s.duration_ms - merged.reduce((n, [a, b]) => n + b! - a!, 0);
}

/** trace.get's summary, critical path and error spans of one trace (no cycles), by plain loops. */
function overviewOf(spans: readonly Span[]) {
  const kids = childrenOf(spans);
  const start = Math.min(...spans.map((s) => s.start_ms));
  const groups = new Map<
    string,
    { service: string; kind: string; spans: number; errors: number; duration_ms: number; self_ms: number }
  >();
  for (const s of spans) {
    const g = groups.get(s.service!) ?? {
      service: s.service!,
      kind: 'server',
      spans: 0,
      errors: 0,
      duration_ms: 0,
      self_ms: 0,
    };
    g.spans++;
    g.errors += s.status === 'error' ? 1 : 0;
    g.duration_ms += s.duration_ms;
    g.self_ms += selfOf(s, kids.get(s.span_id) ?? []);
    groups.set(s.service!, g);
  }
  const summary = [...groups.values()]
    .map((g) => ({ ...g, duration_ms: micro(g.duration_ms), self_ms: micro(g.self_ms) }))
    .sort((a, b) => b.self_ms - a.self_ms || (a.service < b.service ? -1 : 1));
  const ids = new Set(spans.map((s) => s.span_id));
  const ordered = [...spans].sort((a, b) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : 1));
  const path = [ordered.find((s) => !s.parent_span_id || !ids.has(s.parent_span_id))!];
  const endOf = (s: Span) => s.start_ms + s.duration_ms;
  while (path.length < CRITICAL_PATH_MAX_STEPS) {
    const children = kids.get(path.at(-1)!.span_id) ?? [];
    if (children.length === 0) break;
    path.push(children.reduce((a, b) => (endOf(b) > endOf(a) ? b : a)));
  }
  const errors = ordered.filter((s) => s.status === 'error');
  return {
    summary,
    critical_path: path.map((s) => ({
      span_id: s.span_id,
      operation: s.operation,
      service: s.service!,
      duration_ms: s.duration_ms,
      self_ms: micro(selfOf(s, kids.get(s.span_id) ?? [])),
    })),
    error_spans: errors.map((s) => ({
      span_id: s.span_id,
      operation: s.operation,
      service: s.service!,
      kind: 'server',
      offset_ms: micro(s.start_ms - start),
      duration_ms: s.duration_ms,
    })),
  };
}

const countNodes = (nodes: readonly { children: readonly unknown[] }[]): number =>
  nodes.reduce((n, c) => n + 1 + countNodes(c.children as { children: unknown[] }[]), 0);

describe('a trace of 10,000 spans', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_large', NOW, [key]);
    // The large trace in one request, as the finding stored it; then the small ones.
    await postOtlpTraces(h, key, bigTrace);
    await postOtlpTraces(h, key, smallTraces);
  });
  afterAll(async () => {
    await h.close();
  });

  async function call(tool: string, input: unknown) {
    const res = await h.callTool(key.projectId, tool, input);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      status: 200,
      body: 'ok',
    });
    return res.body;
  }

  it('trace.search answers a page of 5 with the large trace summarized from all of its spans', async () => {
    const all = summaries(ALL);
    expect(all.slice(0, 5).map((t) => t.trace_id)).toContain(BIG);
    expect(traceSearchOutput.parse(await call('trace.search', { limit: 5 }))).toEqual({
      items: all.slice(0, 5),
      limit: 5,
      has_more: true,
      next_cursor: expect.any(String),
    });
  });

  it.each([
    [
      { operation: 'GET /big', limit: 1 },
      (t: ReturnType<typeof summaries>[number]) => t.root_operation === 'GET /big',
    ],
    [
      { operation: 'GET /small', limit: 2 },
      (t: ReturnType<typeof summaries>[number]) => t.root_operation === 'GET /small',
    ],
    [{ status: 'error', limit: 1 }, (t: ReturnType<typeof summaries>[number]) => t.error],
    [{ min_duration_ms: 10_000 }, (t: ReturnType<typeof summaries>[number]) => t.duration_ms >= 10_000],
    [
      { from: new Date(NOW - 100 * SEC).toISOString(), limit: 3 },
      (t: ReturnType<typeof summaries>[number]) => Date.parse(t.started_at) >= NOW - 100 * SEC,
    ],
  ])('trace.search %p', async (input, keep) => {
    const all = summaries(ALL).filter(keep);
    const limit = (input as { limit?: number }).limit ?? 50;
    expect(traceSearchOutput.parse(await call('trace.search', input))).toEqual({
      items: all.slice(0, limit),
      limit,
      has_more: all.length > limit,
      ...(all.length > limit ? { next_cursor: expect.any(String) } : {}),
    });
  });

  it('trace.get answers a first page within 100,000 characters, with summary, critical path and error spans of all 10,000', async () => {
    const [big] = summaries(bigTrace);
    const body = await call('trace.get', { trace_id: BIG });
    expect(JSON.stringify(body).length).toBeLessThan(100_000);
    const got = traceGetOutput.parse(body);
    const expected = overviewOf(bigTrace);
    expect(got).toMatchObject({
      trace_id: BIG,
      found: true,
      truncated: true,
      has_more: true,
      next_cursor: expect.any(String),
      span_count: BIG_SPANS,
      started_at: big!.started_at,
      duration_ms: big!.duration_ms,
      error: true,
      services: big!.services,
      summary: expected.summary,
      critical_path: expected.critical_path,
      error_spans: expected.error_spans,
      error_span_count: 1,
    });
    expect(countNodes(got.spans)).toBe(TRACE_GET_DEFAULT_SPANS);
  });

  it('trace.get pages by next_cursor through every span once, in start order, self time over all children', async () => {
    const kids = childrenOf(bigTrace);
    const expectedSelf = new Map(
      bigTrace.map((s) => [s.span_id, micro(selfOf(s, kids.get(s.span_id) ?? []))]),
    );
    const inOrder = [...bigTrace]
      .sort((a, b) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : 1))
      .map((s) => s.span_id);
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const got = traceGetOutput.parse(
        await call('trace.get', { trace_id: BIG, limit: 2000, ...(cursor ? { cursor } : {}) }),
      );
      const ids: string[] = [];
      const onPage = new Set<string>();
      const stack = [...got.spans];
      for (let next = stack.pop(); next; next = stack.pop()) {
        onPage.add(next.span_id);
        stack.push(...next.children);
      }
      const walk = (nodes: TraceSpanNode[], top: boolean) => {
        for (const n of nodes) {
          ids.push(n.span_id);
          expect([n.span_id, n.self_ms, n.orphan]).toEqual([n.span_id, expectedSelf.get(n.span_id), false]);
          // At the top with a parent: the parent is on another page, and marked so.
          if (top && n.parent_span_id)
            expect([n.span_id, n.parent_on_other_page, onPage.has(n.parent_span_id)]).toEqual([
              n.span_id,
              true,
              false,
            ]);
          walk(n.children, false);
        }
      };
      walk(got.spans, true);
      pages.push(ids);
      cursor = got.next_cursor;
      expect(got.has_more).toBe(cursor !== undefined);
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([2000, 2000, 2000, 2000, 2000]);
    expect(pages.map((p) => [...p].sort())).toEqual(
      pages.map((_, i) => inOrder.slice(i * 2000, (i + 1) * 2000).sort()),
    );
  });

  it('trace.aggregate counts every span of the large trace', async () => {
    const expected = new Map<string, number>();
    for (const s of ALL) expected.set(s.operation, (expected.get(s.operation) ?? 0) + 1);
    const got = (await call('trace.aggregate', { days: 1, limit: 1000 })) as {
      operations: { operation: string; spans: number }[];
    };
    expect(new Map(got.operations.map((o) => [o.operation, o.spans]))).toEqual(expected);
  });
});
