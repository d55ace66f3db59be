// trace.get as the console draws it: rows indented by parent, bars on one time axis from the
// trace start (the shared waterfall layout), red error, blue client, green server, gray other;
// each row opens to the span's details with its self time.

import type { traceGetOutput } from '@svc/tools-trace';
import type { z } from 'zod';
import { AXIS_WIDTH, barClasses, isError, layoutWaterfall, type TraceSpan } from '../waterfall-layout';
import { connectView } from './bridge';
import { table } from './charts';
import { h, render, renderMessage, svg } from './dom';
import { exact, ms, num } from './format';

type TraceGet = z.infer<typeof traceGetOutput>;

/** Deeper spans keep this indent: a 64-level trace must still leave room for its names. */
const MAX_INDENT_DEPTH = 12;
const INDENT_PX = 12;

function legend(): HTMLElement {
  const item = (classes: string, label: string) =>
    h('li', {}, h('span', { class: `swatch ${classes}`, 'aria-hidden': 'true' }), label);
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Bar colors' },
    item('kind-server', 'server span'),
    item('kind-client', 'client span'),
    item('kind-other', 'other kinds'),
    item('status-error', 'status error (any kind)'),
  );
}

function details(span: TraceSpan): HTMLElement {
  const attributes = Object.entries(span.attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fact = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  return h(
    'div',
    { class: 'details' },
    h(
      'dl',
      {},
      ...fact('Span id', h('code', {}, span.span_id)),
      ...fact('Parent span id', span.parent_span_id ? h('code', {}, span.parent_span_id) : 'none'),
      ...fact('Service', span.service ?? '–'),
      ...fact('Operation', span.operation),
      ...fact('Kind', span.kind),
      ...fact('Status', span.status),
      ...fact('Start', `${ms(span.offset_ms)} after the trace start`),
      ...fact('Duration', ms(span.duration_ms)),
      ...fact('Self time', ms(span.self_ms)),
      ...fact('Sample rate', num(span.sample_rate)),
      ...(span.orphan ? fact('Orphan', 'its parent is not in this trace') : []),
      ...(span.parent_on_other_page ? fact('Parent', 'on another page of this trace') : []),
    ),
    attributes.length
      ? h(
          'table',
          {},
          h('caption', {}, 'Attributes'),
          h(
            'tbody',
            {},
            ...attributes.map(([k, v]) =>
              h('tr', {}, h('th', { scope: 'row' }, h('code', {}, k)), h('td', { class: 'wrap' }, v)),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No attributes.'),
  );
}

/** Where the trace's time went, over all its spans (not only this page): summary and critical path. */
function overview(trace: TraceGet): HTMLElement[] {
  const numeric = [false, false, true, true, true, true];
  const summary = table(
    'Spans by service and kind (the whole trace)',
    ['Service', 'Kind', 'Spans', 'Errors', 'Self time', 'Duration'],
    trace.summary.map((g) => ({
      cells: [g.service ?? '–', g.kind, num(g.spans), num(g.errors), ms(g.self_ms), ms(g.duration_ms)],
    })),
    numeric,
  );
  const path = table(
    'Critical path: from the root, each step the child that ends last',
    ['Step', 'Service', 'Operation', 'Duration', 'Self time'],
    trace.critical_path.map((step, i) => ({
      cells: [num(i + 1), step.service ?? '–', step.operation, ms(step.duration_ms), ms(step.self_ms)],
      attributes: { 'data-span-id': step.span_id },
    })),
    [true, false, false, true, true],
  );
  return trace.summary.length > 0 ? [summary, path] : [];
}

/** What the page shows of the trace: all of it, or the spans of one page by start time. */
function pageNote(trace: TraceGet, shown: number): HTMLElement | null {
  if (!trace.truncated) return null;
  const more = trace.has_more ? ' More follow by next_cursor.' : '';
  return h(
    'p',
    { class: 'muted', 'data-field': 'page' },
    `One page of the trace: ${num(shown)} of its ${num(trace.span_count)} spans, by start time.${more}`,
  );
}

function draw(trace: TraceGet): void {
  if (!trace.found) {
    renderMessage(`Trace ${trace.trace_id} was not found.`);
    return;
  }
  const { rows, axisMs } = layoutWaterfall(trace.spans, trace.duration_ms);
  const list = h('ol', { class: 'waterfall-rows', 'data-axis-ms': exact(axisMs) });
  for (const { span, depth, x, width } of rows) {
    const label = h(
      'span',
      { class: 'span-label' },
      h('span', { class: 'visually-hidden' }, `Level ${depth + 1}: `),
      span.service ? h('strong', {}, span.service) : null,
      ' ',
      span.operation,
      isError(span) ? ' (error)' : null,
    );
    label.style.paddingLeft = `${Math.min(depth, MAX_INDENT_DEPTH) * INDENT_PX}px`;
    const bar = svg(
      'svg',
      {
        class: 'span-track',
        viewBox: `0 0 ${AXIS_WIDTH} 12`,
        preserveAspectRatio: 'none',
        'aria-hidden': 'true',
      },
      svg('rect', { x, y: 0, width, height: 12, class: barClasses(span) }),
    );
    list.appendChild(
      h(
        'li',
        {
          'data-span-id': span.span_id,
          'data-depth': depth,
          'data-duration-ms': exact(span.duration_ms),
          'data-self-ms': exact(span.self_ms),
        },
        h(
          'details',
          {},
          h(
            'summary',
            { class: 'waterfall-row' },
            label,
            bar,
            h('span', { class: 'span-duration' }, ms(span.duration_ms)),
          ),
          details(span),
        ),
      ),
    );
  }
  render(
    h('h1', {}, 'Trace ', h('code', {}, trace.trace_id)),
    h(
      'ul',
      { class: 'stats' },
      h('li', {}, h('strong', { 'data-field': 'duration_ms' }, ms(trace.duration_ms)), 'duration'),
      h('li', {}, h('strong', { 'data-field': 'span_count' }, num(trace.span_count)), 'spans'),
      h('li', {}, h('strong', {}, trace.services.join(', ') || '–'), 'services'),
      trace.error ? h('li', {}, h('strong', {}, 'error'), 'a span failed') : null,
    ),
    pageNote(trace, rows.length),
    legend(),
    list,
    ...overview(trace),
  );
}

connectView('trace-waterfall', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('trace.get returned no trace.');
      return;
    }
    draw(result.structuredContent as TraceGet);
  },
});
