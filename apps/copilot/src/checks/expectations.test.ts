import { checkTrace, combine, type FetchedTrace, type TraceSpan } from './expectations';

// The span-tree checks on trees built by hand: the edge cases a demo trace rarely shows.

let next = 0;
function span(
  service: string,
  offset: number,
  ms: number,
  children: TraceSpan[] = [],
  status = 'ok',
): TraceSpan {
  next += 1;
  return {
    span_id: `s${next}`,
    operation: `op${next}`,
    service,
    status,
    offset_ms: offset,
    duration_ms: ms,
    children,
  };
}

function trace(spans: TraceSpan[], options: { truncated?: boolean; span_count?: number } = {}): FetchedTrace {
  const services = new Set<string>();
  const walk = (s: TraceSpan[]) => {
    for (const x of s) {
      services.add(x.service!);
      walk(x.children);
    }
  };
  walk(spans);
  return {
    trace_id: 't1',
    found: true,
    span_count: options.span_count ?? 0,
    truncated: options.truncated ?? false,
    services: [...services].sort(),
    spans,
  };
}

describe('checkTrace', () => {
  it('calls_before: a tie at the same millisecond counts only when the first service made the call', () => {
    const caller = trace([span('gateway', 5, 100, [span('payments', 5, 50)])]);
    expect(checkTrace({ kind: 'calls_before', first: 'gateway', later: 'payments' }, caller).verdict).toBe(
      'supported',
    );
    expect(checkTrace({ kind: 'calls_before', first: 'payments', later: 'gateway' }, caller).verdict).toBe(
      'refuted',
    );
    const siblings = trace([span('root', 0, 100, [span('gateway', 5, 10), span('payments', 5, 10)])]);
    expect(checkTrace({ kind: 'calls_before', first: 'gateway', later: 'payments' }, siblings).verdict).toBe(
      'refuted',
    );
  });

  it('calls_before: the later service missing is inconclusive; the first missing refutes', () => {
    const t = trace([span('gateway', 0, 100, [span('payments', 10, 50)])]);
    const missingLater = checkTrace({ kind: 'calls_before', first: 'gateway', later: 'fraud' }, t);
    expect(missingLater).toEqual({
      verdict: 'inconclusive',
      reason: 'trace t1 has no span of service fraud (services: gateway, payments).',
    });
    expect(checkTrace({ kind: 'calls_before', first: 'fraud', later: 'payments' }, t).verdict).toBe(
      'refuted',
    );
  });

  it('a truncated trace: a failure seen still refutes, a pass is inconclusive', () => {
    const t = trace([span('a', 0, 900, [span('b', 1, 10, [], 'error')])], {
      truncated: true,
      span_count: 5000,
    });
    expect(checkTrace({ kind: 'no_span_over', ms: 500 }, t).verdict).toBe('refuted');
    expect(checkTrace({ kind: 'no_error_span' }, t).verdict).toBe('refuted');
    const pass = checkTrace({ kind: 'no_span_over', ms: 1000 }, t);
    expect(pass.verdict).toBe('inconclusive');
    expect(pass.reason).toContain('only 2 of 5000 spans could be read');
    expect(checkTrace({ kind: 'calls_before', first: 'z', later: 'b' }, t).verdict).toBe('inconclusive');
  });

  it('no_span_over is strict: a span of exactly N ms passes', () => {
    const t = trace([span('a', 0, 500)]);
    expect(checkTrace({ kind: 'no_span_over', ms: 500 }, t).verdict).toBe('supported');
    expect(checkTrace({ kind: 'no_span_over', ms: 499.5 }, t).verdict).toBe('refuted');
  });

  it('an unknown trace decides nothing', () => {
    const missing: FetchedTrace = { ...trace([]), found: false };
    expect(checkTrace({ kind: 'no_error_span' }, missing).verdict).toBe('inconclusive');
  });
});

describe('combine', () => {
  it('refuted beats inconclusive beats supported; nothing to combine is inconclusive', () => {
    expect(combine(['supported', 'inconclusive', 'refuted'])).toBe('refuted');
    expect(combine(['supported', 'inconclusive'])).toBe('inconclusive');
    expect(combine(['supported', 'supported'])).toBe('supported');
    expect(combine([])).toBe('inconclusive');
  });
});
