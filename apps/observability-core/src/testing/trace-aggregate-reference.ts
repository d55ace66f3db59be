// Test support: trace.aggregate written plainly and independently of the tool (loops over the
// spans as sent, no SQL), from docs/semantics.md: weights, weighted percentiles in thousandths,
// busiest first.

export interface RefSpan {
  operation: string;
  status: 'ok' | 'error' | 'unset';
  start_time: string;
  duration_ms: number;
  sample_rate?: number;
}

const DAY = 86_400_000;

export const weightOf = (s: RefSpan) =>
  s.status === 'error' || !s.sample_rate || s.sample_rate <= 0 ? 1 : 1 / s.sample_rate;

/** Round half to even, as ClickHouse rounds floats. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Smallest duration whose cumulative weight (in thousandths) reaches p of the total. */
export function weightedPercentile(spans: readonly RefSpan[], p: number): number {
  const sorted = [...spans].sort((a, b) => a.duration_ms - b.duration_ms);
  const weights = sorted.map((s) => roundHalfEven(weightOf(s) * 1000));
  const total = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += weights[i]!;
    if (cumulative >= p * total) return sorted[i]!.duration_ms;
  }
  return sorted[sorted.length - 1]!.duration_ms;
}

const sig = (x: number) => Number(x.toPrecision(13));

/** trace.aggregate's answer over `spans` for the window [now - days, now]. */
export function referenceAggregate(spans: readonly RefSpan[], now: number, days: number, limit = 100) {
  const from = now - days * DAY;
  const inWindow = spans.filter((s) => Date.parse(s.start_time) >= from && Date.parse(s.start_time) <= now);
  const byOperation = new Map<string, RefSpan[]>();
  for (const s of inWindow) {
    const group = byOperation.get(s.operation);
    if (group) group.push(s);
    else byOperation.set(s.operation, [s]);
  }
  const operations = [...byOperation.entries()].map(([operation, group]) => {
    let weight = 0;
    let errors = 0;
    for (const s of group) {
      weight += weightOf(s);
      if (s.status === 'error') errors += weightOf(s);
    }
    return {
      operation,
      count: sig(weight),
      spans: group.length,
      p50_ms: weightedPercentile(group, 0.5),
      p99_ms: weightedPercentile(group, 0.99),
      error_rate: sig(errors / weight),
    };
  });
  operations.sort((a, b) => b.count - a.count || (a.operation < b.operation ? -1 : 1));
  return {
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
    total: sig(inWindow.reduce((sum, s) => sum + weightOf(s), 0)),
    operations: operations.slice(0, limit),
    limit,
    has_more: operations.length > limit,
  };
}
