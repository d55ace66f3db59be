import {
  CRITICAL_PATH_MAX_STEPS,
  TRACE_GET_MAX_DEPTH,
  TRACE_GET_MAX_SPANS,
  type TraceSpanNode,
  traceGetOutput,
} from '@svc/tools-trace';
import { type CoreHarness, createCoreHarness, type TestKey } from '../../testing/core-harness';
import { selfTime } from './span-tree';

// Expected trees are built here with plain recursion from the spans that were ingested; self time
// is counted millisecond by millisecond (durations and starts are whole milliseconds).

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const keyA: TestKey = { keyId: 'tg_key_a', projectId: 'tg_a', secret: 'secret-a-0123456789', active: true };
const keyB: TestKey = { keyId: 'tg_key_b', projectId: 'tg_b', secret: 'secret-b-0123456789', active: true };

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
  attributes?: Record<string, string>;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const TREE = hex(0x7ee, 32);
const ORPHANS = hex(0x0bad, 32);
const CYCLE = hex(0xc1c, 32);
const LONG = hex(0x1009, 32);
const B_ONLY = hex(0xb0b, 32);
const at = (offset: number) => new Date(NOW - 3_600_000 + offset).toISOString();

function span(
  trace_id: string,
  id: string,
  parent: string | undefined,
  offset: number,
  duration: number,
  extra: Partial<Span> = {},
): Span {
  return {
    trace_id,
    span_id: id.padStart(16, '0'),
    ...(parent ? { parent_span_id: parent.padStart(16, '0') } : {}),
    kind: parent ? 'server' : 'client',
    status: 'ok',
    operation: `op ${id}`,
    service: ['mobile', 'gateway', 'checkout', 'payments', 'db'][parseInt(id, 16) % 5]!,
    start_time: at(offset),
    duration_ms: duration,
    ...extra,
  };
}

// Ingested out of order on purpose: the tree must not depend on arrival.
const A: Span[] = [
  // mobile -> gateway -> (checkout -> payments -> db, db twice overlapping) and a sibling started first.
  span(TREE, 'a4', 'a2', 40, 300, { status: 'error', sample_rate: 0.25 }),
  span(TREE, 'a1', undefined, 0, 1000, {
    user_id: 'u1',
    session_id: 's1',
    attributes: { 'http.route': '/cart' },
  }),
  span(TREE, 'a3', 'a2', 20, 100),
  span(TREE, 'a2', 'a1', 10, 800),
  span(TREE, 'a5', 'a4', 50, 120),
  span(TREE, 'a6', 'a4', 100, 400), // ends after its parent: only the overlap is the parent's
  span(TREE, 'a7', 'a2', 20, 50, { status: 'unset' }), // same start as a3: by span id
  // A trace whose root never arrived: two orphans, one with a child.
  span(ORPHANS, 'b2', 'ff', 30, 100),
  span(ORPHANS, 'b1', 'fe', 10, 500),
  span(ORPHANS, 'b3', 'b1', 20, 30),
  // a <-> b name each other; c hangs on b; d is a proper root started later.
  span(CYCLE, 'c1', 'c2', 0, 100),
  span(CYCLE, 'c2', 'c1', 5, 50),
  span(CYCLE, 'c3', 'c2', 6, 10),
  span(CYCLE, 'c4', undefined, 200, 10),
  // A chain deeper and longer than one answer carries.
  ...Array.from({ length: TRACE_GET_MAX_SPANS + 5 }, (_, i) =>
    span(
      LONG,
      hex(0x1000 + i, 4),
      i === 0 ? undefined : hex(0x1000 + i - 1, 4),
      i,
      TRACE_GET_MAX_SPANS + 10 - i,
    ),
  ),
];
const B: Span[] = [span(B_ONLY, 'd1', undefined, 0, 5, { operation: 'B-ONLY' })];

/** Covered milliseconds of a span's interval by its children, one millisecond at a time. */
function selfByTicks(s: Span, children: Span[]): number {
  const start = Date.parse(s.start_time);
  let self = 0;
  for (let t = start; t < start + s.duration_ms; t++) {
    const covered = children.some(
      (c) => Date.parse(c.start_time) <= t && t < Date.parse(c.start_time) + c.duration_ms,
    );
    if (!covered) self++;
  }
  return self;
}

const byStart = (a: Span, b: Span) =>
  Date.parse(a.start_time) - Date.parse(b.start_time) || (a.span_id < b.span_id ? -1 : 1);

function node(
  s: Span,
  all: Span[],
  traceStart: number,
  orphan: boolean,
  skip: Set<string> = new Set(),
): TraceSpanNode {
  const children = all.filter((c) => c.parent_span_id === s.span_id && !skip.has(c.span_id)).sort(byStart);
  return {
    span_id: s.span_id,
    parent_span_id: s.parent_span_id ?? null,
    operation: s.operation,
    service: s.service ?? null,
    kind: s.kind,
    status: s.status,
    start_time: s.start_time,
    offset_ms: Date.parse(s.start_time) - traceStart,
    duration_ms: s.duration_ms,
    self_ms: selfByTicks(s, children),
    orphan,
    sample_rate: s.sample_rate ?? 1,
    user_id: s.user_id ?? null,
    session_id: s.session_id ?? null,
    attributes: s.attributes ?? {},
    children: children.map((c) => node(c, all, traceStart, false, skip)),
  };
}

const byEnd = (a: Span, b: Span) =>
  Date.parse(b.start_time) + b.duration_ms - (Date.parse(a.start_time) + a.duration_ms) || byStart(a, b);

/** Summary, critical path and error spans of a trace without cycles, by plain loops. */
function overviewOf(spans: Span[]) {
  const start = Math.min(...spans.map((s) => Date.parse(s.start_time)));
  const childrenOf = (s: Span) => spans.filter((c) => c.parent_span_id === s.span_id);
  const groups = new Map<
    string,
    {
      service: string | null;
      kind: string;
      spans: number;
      errors: number;
      duration_ms: number;
      self_ms: number;
    }
  >();
  for (const s of spans) {
    const key = `${s.service}/${s.kind}`;
    const g = groups.get(key) ?? {
      service: s.service ?? null,
      kind: s.kind,
      spans: 0,
      errors: 0,
      duration_ms: 0,
      self_ms: 0,
    };
    g.spans++;
    if (s.status === 'error') g.errors++;
    g.duration_ms += s.duration_ms;
    g.self_ms += selfByTicks(s, childrenOf(s));
    groups.set(key, g);
  }
  const ids = new Set(spans.map((s) => s.span_id));
  const path: Span[] = [
    [...spans].sort(byStart).find((s) => !s.parent_span_id || !ids.has(s.parent_span_id))!,
  ];
  for (let next = childrenOf(path.at(-1)!).sort(byEnd)[0]; next; next = childrenOf(next).sort(byEnd)[0])
    path.push(next);
  const errors = spans.filter((s) => s.status === 'error').sort(byStart);
  return {
    has_more: false,
    summary: [...groups.values()].sort(
      (a, b) => b.self_ms - a.self_ms || (a.service! < b.service! ? -1 : 1) || (a.kind < b.kind ? -1 : 1),
    ),
    critical_path: path.map((s) => ({
      span_id: s.span_id,
      operation: s.operation,
      service: s.service ?? null,
      duration_ms: s.duration_ms,
      self_ms: selfByTicks(s, childrenOf(s)),
    })),
    error_spans: errors.map((s) => ({
      span_id: s.span_id,
      operation: s.operation,
      service: s.service ?? null,
      kind: s.kind,
      offset_ms: Date.parse(s.start_time) - start,
      duration_ms: s.duration_ms,
    })),
    error_span_count: errors.length,
  };
}

/** Trace without cycles: the top is every span without a parent in the trace. */
function expectedTrace(traceId: string) {
  const spans = A.filter((s) => s.trace_id === traceId);
  const ids = new Set(spans.map((s) => s.span_id));
  const start = Math.min(...spans.map((s) => Date.parse(s.start_time)));
  const end = Math.max(...spans.map((s) => Date.parse(s.start_time) + s.duration_ms));
  const top = spans.filter((s) => !s.parent_span_id || !ids.has(s.parent_span_id)).sort(byStart);
  return {
    trace_id: traceId,
    found: true,
    started_at: new Date(start).toISOString(),
    duration_ms: end - start,
    span_count: spans.length,
    error: spans.some((s) => s.status === 'error'),
    services: [...new Set(spans.map((s) => s.service!))].sort(),
    truncated: false,
    spans: top.map((s) => node(s, spans, start, !!s.parent_span_id)),
    ...overviewOf(spans),
  };
}

describe('trace.get on chDB', () => {
  let h: CoreHarness;

  beforeAll(async () => {
    h = await createCoreHarness('core_trace_get', NOW, [keyA, keyB]);
    await h.ingestAll(keyA, 'spans', A);
    await h.ingestAll(keyB, 'spans', B);
  });
  afterAll(async () => {
    await h.close();
  });

  async function get(traceId: string, project = 'tg_a', more: Record<string, unknown> = {}) {
    const res = await h.callTool(project, 'trace.get', { trace_id: traceId, ...more });
    expect(res.status).toBe(200);
    return traceGetOutput.parse(res.body);
  }

  it('nests every span under its parent, children by start time then span id, with self time', async () => {
    const body = await get(TREE);
    expect(body).toEqual(expectedTrace(TREE));
    // Spot checks that the reference itself reads as intended.
    const [root] = body.spans;
    expect(root!.children.map((c) => c.span_id)).toEqual(['00000000000000a2']);
    expect(root!.children[0]!.children.map((c) => c.span_id.slice(-2))).toEqual(['a3', 'a7', 'a4']);
    expect(root!.self_ms).toBe(200);
  });

  it('puts spans whose parent is missing at the top, flagged, with their own children', async () => {
    const body = await get(ORPHANS);
    expect(body).toEqual(expectedTrace(ORPHANS));
    expect(body.spans.map((s) => [s.span_id.slice(-2), s.orphan, s.children.length])).toEqual([
      ['b1', true, 1],
      ['b2', true, 0],
    ]);
  });

  it('cuts a cycle at its earliest span, which goes to the top flagged', async () => {
    const spans = A.filter((s) => s.trace_id === CYCLE);
    const start = Date.parse(at(0));
    const c1 = spans.find((s) => s.span_id.endsWith('c1'))!;
    const c4 = spans.find((s) => s.span_id.endsWith('c4'))!;
    const body = await get(CYCLE);
    expect(body.spans).toEqual([
      node(c1, spans, start, true, new Set([c1.span_id])),
      node(c4, spans, start, false),
    ]);
    expect(body.spans[0]!.children[0]!.children.map((c) => c.span_id.slice(-2))).toEqual(['c3']);
    expect(body.span_count).toBe(4);
  });

  it(`carries the first ${TRACE_GET_MAX_SPANS} spans of a longer trace, totals over all of them`, async () => {
    const body = await get(LONG, 'tg_a', { limit: TRACE_GET_MAX_SPANS });
    const spans = A.filter((s) => s.trace_id === LONG);
    expect(body.truncated).toBe(true);
    expect(body.has_more).toBe(true);
    expect(body.critical_path).toHaveLength(CRITICAL_PATH_MAX_STEPS);
    expect(body.span_count).toBe(spans.length);
    expect(body.duration_ms).toBe(TRACE_GET_MAX_SPANS + 10);
    // The chain comes in pieces of TRACE_GET_MAX_DEPTH levels, each piece flagged at the top.
    const pieces = body.spans.map((top) => {
      const ids: string[] = [];
      for (let n: TraceSpanNode | undefined = top; n; n = n.children[0]) ids.push(n.span_id);
      return { ids, orphan: top.orphan };
    });
    expect(pieces.map((p) => p.ids.length)).toEqual(
      Array.from({ length: Math.ceil(TRACE_GET_MAX_SPANS / TRACE_GET_MAX_DEPTH) }, (_, i) =>
        Math.min(TRACE_GET_MAX_DEPTH, TRACE_GET_MAX_SPANS - i * TRACE_GET_MAX_DEPTH),
      ),
    );
    expect(pieces.flatMap((p) => p.ids)).toEqual(spans.slice(0, TRACE_GET_MAX_SPANS).map((s) => s.span_id));
    expect(pieces.map((p) => p.orphan)).toEqual(pieces.map((_, i) => i > 0));
  });

  it('pages the tree by start time: every span once, a parent on another page marked, self time whole', async () => {
    const whole = new Map<string, TraceSpanNode>();
    const walk = (nodes: TraceSpanNode[], visit: (n: TraceSpanNode, top: boolean) => void, top = true) => {
      for (const n of nodes) {
        visit(n, top);
        walk(n.children, visit, false);
      }
    };
    walk(expectedTrace(TREE).spans, (n) => whole.set(n.span_id, n));
    const seen: string[] = [];
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const body = await get(TREE, 'tg_a', { limit: 2, ...(cursor ? { cursor } : {}) });
      const ids: string[] = [];
      walk(body.spans, (n, top) => {
        ids.push(n.span_id);
        expect(n.self_ms).toBe(whole.get(n.span_id)!.self_ms);
        const parentHere = !!n.parent_span_id && ids.includes(n.parent_span_id);
        // On top with its parent elsewhere in the trace: marked, and not an orphan.
        expect([n.span_id, top && n.parent_span_id ? n.parent_on_other_page : undefined]).toEqual([
          n.span_id,
          top && n.parent_span_id && !parentHere ? true : undefined,
        ]);
        expect(n.orphan).toBe(false);
      });
      // Read in storage for a page (trace-overview.ts), as from the rows for the whole trace.
      const { summary, critical_path, error_spans, error_span_count } = expectedTrace(TREE);
      expect(body).toMatchObject({
        truncated: true,
        span_count: 7,
        summary,
        critical_path,
        error_spans,
        error_span_count,
      });
      expect(body.has_more).toBe(!!body.next_cursor);
      pages.push(ids);
      seen.push(...ids);
      cursor = body.next_cursor;
    } while (cursor);
    const inOrder = A.filter((s) => s.trace_id === TREE)
      .sort(byStart)
      .map((s) => s.span_id);
    // Each page holds the next spans by start time, then span id (its tree in its own order).
    expect(pages.map((p) => [...p].sort())).toEqual(
      [0, 2, 4, 6].map((from) => inOrder.slice(from, from + 2).sort()),
    );
    expect(seen).toHaveLength(inOrder.length);
  });

  it('answers found: false for an unknown id and for a trace of another project', async () => {
    const empty = {
      found: false,
      started_at: null,
      duration_ms: 0,
      span_count: 0,
      error: false,
      services: [],
      truncated: false,
      spans: [],
      has_more: false,
      summary: [],
      critical_path: [],
      error_spans: [],
      error_span_count: 0,
    };
    expect(await get(hex(0xdead, 32))).toEqual({ trace_id: hex(0xdead, 32), ...empty });
    expect(await get(B_ONLY)).toEqual({ trace_id: B_ONLY, ...empty });
    expect((await get(B_ONLY, 'tg_b')).found).toBe(true);
  });

  it('takes the id in any case and refuses anything but 32 hex characters', async () => {
    expect((await get(TREE.toUpperCase())).trace_id).toBe(TREE);
    for (const input of [{}, { trace_id: 'abc' }, { trace_id: `${TREE}0` }, { trace_id: TREE, days: 1 }]) {
      expect((await h.callTool('tg_a', 'trace.get', input)).status).toBe(400);
    }
  });
});

describe('selfTime', () => {
  it('counts overlapping children once and clips them to the span', () => {
    const s = { span_id: 'p', parent_span_id: '', start_ms: 0, duration_ms: 100 };
    const c = (start_ms: number, duration_ms: number) => ({
      span_id: 'c',
      parent_span_id: 'p',
      start_ms,
      duration_ms,
    });
    expect(selfTime(s, [])).toBe(100);
    expect(selfTime(s, [c(10, 20), c(20, 20), c(90, 50), c(-5, 10)])).toBe(100 - 30 - 10 - 5);
    expect(selfTime(s, [c(0, 100)])).toBe(0);
    expect(selfTime(s, [c(200, 10)])).toBe(100);
  });
});
