import { traceGetOutput, traceSearchOutput } from '@svc/tools-trace';
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

  it('trace.get answers the earliest 2000 spans, truncated, with totals over all 10,000', async () => {
    const [big] = summaries(bigTrace);
    const got = traceGetOutput.parse(await call('trace.get', { trace_id: BIG }));
    expect(got).toMatchObject({
      trace_id: BIG,
      found: true,
      truncated: true,
      span_count: BIG_SPANS,
      started_at: big!.started_at,
      duration_ms: big!.duration_ms,
      error: true,
      services: big!.services,
    });
    expect(countNodes(got.spans)).toBe(2000);
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
