import { COMPARISON_WORDS, holds, num, pct } from '../compare';
import type { Evidence } from '../evidence';
import { type ClaimOf, decided, type Finding, inconclusive, type Window } from '../finding';

type OperationClaim = ClaimOf<'operation_latency' | 'operation_error_rate'>;
interface OperationRow {
  operation: string;
  count: number;
  spans: number;
  p50_ms: number;
  p99_ms: number;
  error_rate: number;
}

export async function operation(claim: OperationClaim, evidence: Evidence): Promise<Finding> {
  const parameters = { days: claim.days, limit: 10_000 };
  const find = (rows: OperationRow[]) => rows.find((o) => o.operation === claim.operation);
  const measure = (row: OperationRow) =>
    claim.kind === 'operation_error_rate'
      ? { label: 'error rate', value: row.error_rate, text: pct(row.error_rate) }
      : {
          label: claim.percentile,
          value: row[`${claim.percentile}_ms`],
          text: `${num(row[`${claim.percentile}_ms`])} ms`,
        };
  const a = await evidence.ask<{ window: Window; operations: OperationRow[]; has_more: boolean }>(
    'trace.aggregate',
    parameters,
    (answer) => {
      const row = find(answer.operations);
      if (!row)
        return `No span of operation "${claim.operation}" among ${answer.operations.length} operations from ${answer.window.from} to ${answer.window.to}.`;
      const m = measure(row);
      return `"${claim.operation}": ${m.label} ${m.text} over ${num(row.count)} spans restored for sampling (${row.spans} stored), ${answer.window.from} to ${answer.window.to}.`;
    },
  );
  const row = find(a.operations);
  if (!row) {
    const busiest = a.operations.slice(0, 5).map((o) => `"${o.operation}"`);
    return inconclusive(
      `No span of operation "${claim.operation}" in the last ${claim.days} days` +
        (busiest.length > 0 ? `; the busiest operations are ${busiest.join(', ')}.` : '.'),
    );
  }
  const m = measure(row);
  const threshold = claim.kind === 'operation_error_rate' ? claim.rate : claim.ms;
  const thresholdText = claim.kind === 'operation_error_rate' ? pct(claim.rate) : `${num(claim.ms)} ms`;
  const ok = holds(m.value, claim.comparison, threshold);
  return decided(
    ok,
    `The ${m.label} of "${claim.operation}" is ${m.text}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${thresholdText}.`,
  );
}
