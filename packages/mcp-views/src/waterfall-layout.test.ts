import {
  AXIS_WIDTH,
  barClasses,
  barGeometry,
  kindClass,
  layoutWaterfall,
  MIN_BAR_WIDTH,
  type TraceSpan,
} from './waterfall-layout';

// Spans are written flat (id, parent, start, duration), nested the way trace.get nests them, and
// every expectation is worked out again from the flat list: depth by walking up the parents, order
// by the parent/child relation, geometry by the axis arithmetic.

interface Flat {
  id: string;
  parent: string | null;
  offset: number;
  duration: number;
  kind?: string;
  status?: string;
}

function spanOf(f: Flat): TraceSpan {
  return {
    span_id: f.id,
    parent_span_id: f.parent,
    operation: `op ${f.id}`,
    service: 'svc',
    kind: f.kind ?? 'internal',
    status: f.status ?? 'ok',
    start_time: new Date(Date.UTC(2025, 0, 1) + f.offset).toISOString(),
    offset_ms: f.offset,
    duration_ms: f.duration,
    self_ms: f.duration,
    orphan: false,
    sample_rate: 1,
    user_id: null,
    session_id: null,
    attributes: {},
    children: [],
  };
}

/** trace.get's shape: top level = spans whose parent is absent (flagged orphan if they name one). */
function treeOf(flat: Flat[]): TraceSpan[] {
  const byId = new Map(flat.map((f) => [f.id, spanOf(f)]));
  const top: TraceSpan[] = [];
  for (const f of flat) {
    const span = byId.get(f.id)!;
    const parent = f.parent === null ? undefined : byId.get(f.parent);
    if (parent) parent.children.push(span);
    else {
      span.orphan = f.parent !== null;
      top.push(span);
    }
  }
  return top;
}

function depthOf(flat: Flat[], id: string): number {
  const byId = new Map(flat.map((f) => [f.id, f]));
  let depth = 0;
  for (let p = byId.get(id)?.parent; p != null && byId.has(p); p = byId.get(p)?.parent) depth++;
  return depth;
}

const traceDuration = (flat: Flat[]) => Math.max(...flat.map((f) => f.offset + f.duration));

/** A deterministic random tree: each span's parent is an earlier span (or none, or a missing one). */
function randomTrace(n: number, seed: number): Flat[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const flat: Flat[] = [{ id: 's0', parent: null, offset: 0, duration: 500 }];
  for (let i = 1; i < n; i++) {
    const roll = next();
    const parent = roll < 0.05 ? `missing${i}` : `s${Math.floor(next() * i)}`;
    flat.push({
      id: `s${i}`,
      parent,
      offset: Math.round(next() * 400 * 1000) / 1000,
      duration: Math.round(next() * 120 * 1000) / 1000,
      kind: ['server', 'client', 'internal'][i % 3],
      status: i % 7 === 0 ? 'error' : 'ok',
    });
  }
  // The tool hands children in any order here: the layout must order them itself.
  return flat.reverse();
}

describe('layoutWaterfall', () => {
  it('orders a small trace depth first, children and top-level spans by start time', () => {
    // root 0..100 has children a (starts 10) and b (starts 5): b first. a has a1. The orphan names
    // a parent that is not in the trace and starts at 30, after the root: it follows root's subtree.
    const flat: Flat[] = [
      { id: 'orphan', parent: 'gone', offset: 30, duration: 5 },
      { id: 'root', parent: null, offset: 0, duration: 100 },
      { id: 'a', parent: 'root', offset: 10, duration: 50 },
      { id: 'a1', parent: 'a', offset: 20, duration: 10 },
      { id: 'b', parent: 'root', offset: 5, duration: 20 },
    ];
    const { rows, axisMs } = layoutWaterfall(treeOf(flat), 100);
    expect(rows.map((r) => [r.span.span_id, r.depth])).toEqual([
      ['root', 0],
      ['b', 1],
      ['a', 1],
      ['a1', 2],
      ['orphan', 0],
    ]);
    expect(axisMs).toBe(100);
    // On a 100 ms axis of 1000 units, one ms is 10 units.
    const a = rows.find((r) => r.span.span_id === 'a')!;
    expect([a.x, a.width]).toEqual([100, 500]);
    expect(rows.find((r) => r.span.span_id === 'orphan')!.span.orphan).toBe(true);
  });

  it('gives every span of a random trace one row, its depth, a place after its parent, siblings by start', () => {
    const flat = randomTrace(300, 42);
    const duration = traceDuration(flat);
    const { rows, axisMs } = layoutWaterfall(treeOf(flat), duration);
    expect(axisMs).toBe(duration);
    expect(rows.map((r) => r.span.span_id).sort()).toEqual(flat.map((f) => f.id).sort());

    const present = new Set(flat.map((f) => f.id));
    for (const [i, row] of rows.entries()) {
      const f = flat.find((x) => x.id === row.span.span_id)!;
      expect(row.depth).toBe(depthOf(flat, f.id));
      // Depth first: a span's parent is the nearest row above it one level up.
      if (row.depth > 0) {
        const above = rows.slice(0, i).reverse();
        expect(above.find((r) => r.depth === row.depth - 1)!.span.span_id).toBe(f.parent);
      } else {
        expect(f.parent === null || !present.has(f.parent)).toBe(true);
      }
    }
    // Siblings (the same parent in the trace, or both top level) in start order.
    const parentKey = (id: string) => {
      const p = flat.find((x) => x.id === id)!.parent;
      return p !== null && present.has(p) ? p : '(top)';
    };
    const seen = new Map<string, number>();
    for (const row of rows) {
      const key = parentKey(row.span.span_id);
      expect(row.span.offset_ms).toBeGreaterThanOrEqual(seen.get(key) ?? Number.NEGATIVE_INFINITY);
      seen.set(key, row.span.offset_ms);
    }
  });

  it('places every bar on the shared axis: start and length proportional, inside the axis', () => {
    const flat = randomTrace(200, 7);
    const duration = traceDuration(flat);
    const { rows } = layoutWaterfall(treeOf(flat), duration);
    for (const { span, x, width } of rows) {
      const expectedWidth = Math.max(MIN_BAR_WIDTH, (span.duration_ms / duration) * AXIS_WIDTH);
      const expectedX = Math.min((span.offset_ms / duration) * AXIS_WIDTH, AXIS_WIDTH - expectedWidth);
      expect(width).toBeCloseTo(expectedWidth, 1);
      expect(x).toBeCloseTo(expectedX, 1);
      expect(x + width).toBeLessThanOrEqual(AXIS_WIDTH + 0.01);
    }
  });

  it('stretches the axis to the last span end when the trace duration is shorter', () => {
    const flat: Flat[] = [
      { id: 'r', parent: null, offset: 0, duration: 40 },
      { id: 'late', parent: 'r', offset: 30, duration: 50 },
    ];
    const { rows, axisMs } = layoutWaterfall(treeOf(flat), 40);
    expect(axisMs).toBe(80);
    const late = rows[1]!;
    expect([late.x, late.width]).toEqual([(30 / 80) * AXIS_WIDTH, (50 / 80) * AXIS_WIDTH]);
  });

  it('lays out a chain deeper than any call stack', () => {
    const n = 20_000;
    const flat: Flat[] = Array.from({ length: n }, (_, i) => ({
      id: `d${i}`,
      parent: i === 0 ? null : `d${i - 1}`,
      offset: i,
      duration: n - i,
    }));
    const { rows } = layoutWaterfall(treeOf(flat), n);
    expect(rows).toHaveLength(n);
    expect(rows[n - 1]!.depth).toBe(n - 1);
  });
});

describe('barGeometry', () => {
  it('keeps a zero-length span visible, and inside the axis at its end', () => {
    expect(barGeometry(50, 0, 100)).toEqual({ x: 500, width: MIN_BAR_WIDTH });
    expect(barGeometry(100, 0, 100)).toEqual({ x: AXIS_WIDTH - MIN_BAR_WIDTH, width: MIN_BAR_WIDTH });
  });

  it('draws a trace of no duration as a minimal bar at the start', () => {
    expect(barGeometry(0, 0, 0)).toEqual({ x: 0, width: MIN_BAR_WIDTH });
  });
});

describe('bar colors', () => {
  it('classes by kind (any case), other kinds gray, and adds error for status error', () => {
    expect(kindClass('server')).toBe('kind-server');
    expect(kindClass('SERVER')).toBe('kind-server');
    expect(kindClass('client')).toBe('kind-client');
    for (const kind of ['internal', 'producer', 'consumer', '']) expect(kindClass(kind)).toBe('kind-other');
    expect(barClasses({ kind: 'client', status: 'error' })).toBe('span-bar kind-client status-error');
    expect(barClasses({ kind: 'server', status: 'ok' })).toBe('span-bar kind-server');
    expect(barClasses({ kind: 'internal', status: 'unset' })).toBe('span-bar kind-other');
  });
});
