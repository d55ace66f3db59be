// Plain SVG charts: a few hundred bytes of code instead of a chart library, with the numbers also
// in a table beside each chart (screen readers read the table; the chart is aria-hidden).

import { h, svg } from './dom';
import { exact, num } from './format';

const WIDTH = 600;
const HEIGHT = 160;
const LABEL_SPACE = 18;
/** Room above the tallest bar for the scale's label. */
const TOP_SPACE = 16;

/** Vertical bars, one per point, scaled to the largest value; each bar carries its exact value. */
export function barChart(points: { label: string; value: number }[], name: string): SVGElement {
  const max = Math.max(0, ...points.map((p) => p.value));
  const step = points.length ? WIDTH / points.length : WIDTH;
  const plot = HEIGHT - LABEL_SPACE;
  const scale = plot - TOP_SPACE;
  const chart = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    'aria-hidden': 'true',
    'data-chart': name,
  });
  points.forEach((point, i) => {
    const height = max > 0 ? (point.value / max) * scale : 0;
    chart.appendChild(
      svg(
        'rect',
        {
          class: 'bar',
          x: i * step + step * 0.1,
          y: plot - height,
          width: step * 0.8,
          height,
          'data-label': point.label,
          'data-value': exact(point.value),
        },
        svg('title', {}, `${point.label}: ${num(point.value)}`),
      ),
    );
  });
  chart.appendChild(svg('line', { class: 'axis', x1: 0, x2: WIDTH, y1: plot, y2: plot }));
  const first = points[0];
  const last = points[points.length - 1];
  if (first) chart.appendChild(svg('text', { x: 0, y: HEIGHT - 4 }, first.label));
  if (last && last !== first)
    chart.appendChild(svg('text', { x: WIDTH, y: HEIGHT - 4, 'text-anchor': 'end' }, last.label));
  chart.appendChild(svg('text', { x: 0, y: 11 }, `max ${num(max)}`));
  return chart;
}

/** A horizontal meter for a 0..1 ratio (a share, a rate): decoration beside the written number. */
export function meter(ratio: number | null): SVGElement {
  const width = ratio === null ? 0 : Math.max(0, Math.min(1, ratio)) * 100;
  return svg(
    'svg',
    { class: 'meter', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true' },
    svg('rect', { class: 'bar-muted', x: 0, y: 0, width: 100, height: 10 }),
    svg('rect', { class: 'bar', x: 0, y: 0, width, height: 10, 'data-value': exact(ratio) }),
  );
}

/** A table with a caption; cells are [text, numeric?, data-value?]. */
export function table(
  caption: string,
  head: string[],
  rows: { cells: (string | Node)[]; numeric?: boolean[]; attributes?: Record<string, string> }[],
  numericColumns: boolean[] = [],
): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...head.map((label, i) =>
          h('th', { scope: 'col', class: numericColumns[i] ? 'n' : undefined }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          row.attributes ?? {},
          ...row.cells.map((cell, i) => h('td', { class: numericColumns[i] ? 'n' : 'wrap' }, cell)),
        ),
      ),
    ),
  );
}
