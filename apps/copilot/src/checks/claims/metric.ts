import { COMPARISON_WORDS, holds, num } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, type Finding, inconclusive, type Window } from '../finding';

type MetricClaim = ClaimOf<'metric_percentile'>;
interface MetricRow {
  name: string;
  unit: string | null;
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

export async function metricPercentile(claim: MetricClaim, evidence: Evidence): Promise<Finding> {
  const find = (rows: MetricRow[]) => rows.find((m) => m.name === claim.metric);
  const unit = (row: MetricRow) => (row.unit ? ` ${row.unit}` : '');
  const a = await evidence.ask<{ window: Window; metrics: MetricRow[] }>(
    'apm.stats',
    { days: claim.days },
    (answer) => {
      const row = find(answer.metrics);
      return row
        ? `${claim.metric}: ${claim.percentile} ${num(row[claim.percentile])}${unit(row)} over ${row.count} samples, ${answer.window.from} to ${answer.window.to}.`
        : `No sample of metric ${claim.metric}; metrics with samples: ${answer.metrics.map((m) => m.name).join(', ') || 'none'}.`;
    },
  );
  const row = find(a.metrics);
  if (!row) return inconclusive(`No sample of metric ${claim.metric} in the last ${claim.days} days.`);
  const observed = row[claim.percentile];
  const ok = holds(observed, claim.comparison, claim.value);
  return decided(
    ok,
    `The ${claim.percentile} of ${claim.metric} is ${num(observed)}${unit(row)}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${num(claim.value)}.`,
  );
}
