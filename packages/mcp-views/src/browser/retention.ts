// analytics.retention as the retention curve (rate per day offset) and analytics.cohorts as the
// heatmap (a row per cohort, a cell per day offset, shaded by the tool's rate).

import type { analyticsCohortsOutput, analyticsRetentionOutput } from '@svc/tools-analytics';
import type { z } from 'zod';
import { connectView } from './bridge';
import { table } from './charts';
import { h, render, renderMessage, svg } from './dom';
import { exact, num, pct } from './format';

type Retention = z.infer<typeof analyticsRetentionOutput>;
type Cohorts = z.infer<typeof analyticsCohortsOutput>;
type DayColumn = Retention['days'][number];

const WIDTH = 600;
const HEIGHT = 180;
const PAD = 24;
/** The darkest cell stays light enough for the text written on it in either theme. */
const MAX_SHADE = 0.5;

function curve(days: DayColumn[]): SVGElement {
  const chart = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    'aria-hidden': 'true',
    'data-chart': 'retention',
  });
  const last = Math.max(1, days.length - 1);
  const x = (i: number) => PAD + (i / last) * (WIDTH - 2 * PAD);
  const y = (rate: number) => HEIGHT - PAD - rate * (HEIGHT - 2 * PAD);
  chart.appendChild(
    svg('line', { class: 'axis', x1: PAD, x2: WIDTH - PAD, y1: HEIGHT - PAD, y2: HEIGHT - PAD }),
  );
  const known = days.map((d, i) => ({ d, i })).filter(({ d }) => d.rate !== null);
  if (known.length > 1)
    chart.appendChild(
      svg('polyline', {
        class: 'line',
        points: known.map(({ d, i }) => `${x(i)},${y(d.rate ?? 0)}`).join(' '),
      }),
    );
  for (const { d, i } of known)
    chart.appendChild(
      svg(
        'circle',
        { class: 'bar', cx: x(i), cy: y(d.rate ?? 0), r: 3, 'data-day': d.day, 'data-value': exact(d.rate) },
        svg('title', {}, `day ${d.day}: ${pct(d.rate)}`),
      ),
    );
  chart.appendChild(svg('text', { x: PAD, y: HEIGHT - 6 }, 'day 0'));
  chart.appendChild(
    svg(
      'text',
      { x: WIDTH - PAD, y: HEIGHT - 6, 'text-anchor': 'end' },
      `day ${days[days.length - 1]?.day ?? 0}`,
    ),
  );
  chart.appendChild(svg('text', { x: 0, y: 12 }, '100%'));
  return chart;
}

function drawRetention(data: Retention): void {
  render(
    h('h1', {}, 'Day-N retention'),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    h(
      'ul',
      { class: 'stats' },
      h('li', {}, h('strong', { 'data-field': 'cohort_size' }, num(data.cohort_size)), 'users in the cohort'),
    ),
    curve(data.days),
    table(
      'Retention per day offset',
      ['Day', 'Retained', 'Eligible', 'Rate'],
      data.days.map((d) => ({
        cells: [num(d.day), num(d.retained), num(d.eligible), pct(d.rate)],
        attributes: { 'data-day': String(d.day), 'data-rate': exact(d.rate) },
      })),
      [true, true, true, true],
    ),
  );
}

function drawCohorts(data: Cohorts): void {
  const offsets = Array.from({ length: data.max_day + 1 }, (_, day) => day);
  const rows = data.cohorts.map((cohort) =>
    h(
      'tr',
      { 'data-cohort': cohort.cohort },
      h('th', { scope: 'row' }, cohort.cohort),
      h('td', { class: 'n' }, num(cohort.size)),
      ...cohort.days.map((d) => {
        const cell = h(
          'td',
          {
            class: 'cell',
            'data-day': String(d.day),
            'data-rate': exact(d.rate),
            'data-retained': String(d.retained),
            title: `${num(d.retained)} of ${num(d.eligible)}`,
          },
          pct(d.rate),
        );
        if (d.rate !== null)
          cell.style.backgroundColor = `rgba(var(--heat), ${(d.rate * MAX_SHADE).toFixed(3)})`;
        return cell;
      }),
    ),
  );
  render(
    h('h1', {}, `Retention by ${data.granularity} cohort`),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    h(
      'div',
      { class: 'heatmap', style: undefined },
      h(
        'table',
        {},
        h('caption', {}, 'Retained share of each cohort per day offset'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Cohort'),
            h('th', { scope: 'col', class: 'n' }, 'Users'),
            ...offsets.map((day) => h('th', { scope: 'col', class: 'n' }, `Day ${day}`)),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
    ),
  );
}

connectView('retention', {
  onResult(result) {
    const data = result.structuredContent;
    if (result.isError || !data) {
      renderMessage('The tool returned no retention.');
      return;
    }
    if ('cohorts' in data) drawCohorts(data as Cohorts);
    else if ('cohort_size' in data) drawRetention(data as Retention);
    else renderMessage('This view shows analytics.retention and analytics.cohorts.');
  },
});
