// trace.aggregate: per operation its count, p50 and p99 latency and error rate, sortable by any
// column (the order changes, never a number).

import type { traceAggregateOutput } from '@svc/tools-trace';
import type { z } from 'zod';
import { connectView } from './bridge';
import { meter } from './charts';
import { h, render, renderMessage } from './dom';
import { ms, num, pct } from './format';

type Aggregate = z.infer<typeof traceAggregateOutput>;
type Operation = Aggregate['operations'][number];
type Column = 'operation' | 'count' | 'p50_ms' | 'p99_ms' | 'error_rate';

const COLUMNS: { key: Column; label: string }[] = [
  { key: 'operation', label: 'Operation' },
  { key: 'count', label: 'Spans (restored)' },
  { key: 'p50_ms', label: 'p50' },
  { key: 'p99_ms', label: 'p99' },
  { key: 'error_rate', label: 'Error rate' },
];

function compare(column: Column, a: Operation, b: Operation): number {
  if (column === 'operation') return a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0;
  return a[column] - b[column];
}

function draw(data: Aggregate, sortBy: Column | null, descending: boolean): void {
  const operations =
    sortBy === null
      ? data.operations
      : [...data.operations].sort((a, b) => (descending ? -1 : 1) * compare(sortBy, a, b));
  const maxP99 = Math.max(0, ...data.operations.map((o) => o.p99_ms));
  const header = COLUMNS.map(({ key, label }) => {
    const sorted = sortBy === key ? (descending ? 'descending' : 'ascending') : 'none';
    const button = h('button', { type: 'button', 'data-sort': key }, label);
    button.addEventListener('click', () =>
      draw(data, key, sortBy === key ? !descending : key !== 'operation'),
    );
    return h(
      'th',
      { scope: 'col', 'aria-sort': sorted, class: key === 'operation' ? undefined : 'n' },
      button,
    );
  });
  const rows = operations.map((o) =>
    h(
      'tr',
      {
        'data-operation': o.operation,
        'data-p50': String(o.p50_ms),
        'data-p99': String(o.p99_ms),
        'data-error-rate': String(o.error_rate),
      },
      h('td', { class: 'wrap' }, o.operation),
      h('td', { class: 'n' }, num(o.count)),
      h('td', { class: 'n' }, ms(o.p50_ms)),
      h('td', { class: 'n' }, meter(maxP99 > 0 ? o.p99_ms / maxP99 : 0), ' ', ms(o.p99_ms)),
      h('td', { class: 'n' }, pct(o.error_rate)),
    ),
  );
  render(
    h('h1', {}, 'Latency and errors per operation'),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    h(
      'ul',
      { class: 'stats' },
      h('li', {}, h('strong', { 'data-field': 'total' }, num(data.total)), 'spans (restored)'),
    ),
    h(
      'table',
      {},
      h('caption', {}, 'Operations; choose a column heading to sort'),
      h('thead', {}, h('tr', {}, ...header)),
      h('tbody', {}, ...rows),
    ),
    data.has_more
      ? h('p', { class: 'muted' }, `The ${num(data.limit)} busiest operations; more had spans.`)
      : null,
  );
}

connectView('operations', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('trace.aggregate returned no operations.');
      return;
    }
    draw(result.structuredContent as Aggregate, null, true);
  },
});
