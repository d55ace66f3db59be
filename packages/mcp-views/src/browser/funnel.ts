// analytics.funnel: a bar per step (its users, on the scale of step 1) with the tool's conversion
// from the previous step and from the first.

import type { analyticsFunnelOutput } from '@svc/tools-analytics';
import type { z } from 'zod';
import { connectView } from './bridge';
import { h, render, renderMessage, svg } from './dom';
import { exact, num, pct } from './format';

type Funnel = z.infer<typeof analyticsFunnelOutput>;

const WIDTH = 1000;

function draw(funnel: Funnel): void {
  const max = Math.max(0, ...funnel.steps.map((s) => s.users));
  const rows = funnel.steps.map((step) => {
    const width = max > 0 ? (step.users / max) * WIDTH : 0;
    return h(
      'tr',
      { 'data-step': String(step.step), 'data-users': String(step.users) },
      h('td', { class: 'n' }, num(step.step)),
      // One line, never broken inside a word: a name wider than the column ends in an ellipsis, the
      // full name in the title and in the text that screen readers read.
      h('td', {}, h('span', { class: 'label', title: step.event_name }, step.event_name)),
      h('td', { class: 'n' }, num(step.users)),
      h(
        'td',
        {},
        svg(
          'svg',
          {
            class: 'span-track',
            viewBox: `0 0 ${WIDTH} 12`,
            preserveAspectRatio: 'none',
            'aria-hidden': 'true',
          },
          svg('rect', { class: 'bar', x: 0, y: 0, width, height: 12, 'data-value': exact(step.users) }),
        ),
      ),
      h(
        'td',
        { class: 'n', 'data-value': exact(step.conversion_from_previous) },
        pct(step.conversion_from_previous),
      ),
      h(
        'td',
        { class: 'n', 'data-value': exact(step.conversion_from_first) },
        pct(step.conversion_from_first),
      ),
    );
  });
  render(
    h('h1', {}, 'Funnel'),
    h(
      'p',
      { class: 'muted' },
      `${funnel.window.from} to ${funnel.window.to}; later steps within ${num(funnel.window_hours)} h of the first`,
    ),
    h(
      'ul',
      { class: 'stats' },
      h(
        'li',
        {},
        h('strong', { 'data-field': 'overall_conversion' }, pct(funnel.overall_conversion)),
        'overall conversion',
      ),
    ),
    h(
      'table',
      {},
      h('caption', {}, 'Users per step'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col', class: 'n' }, 'Step'),
          h('th', { scope: 'col' }, 'Event'),
          h('th', { scope: 'col', class: 'n' }, 'Users'),
          h('th', { scope: 'col' }, h('span', { class: 'muted' }, 'Bar')),
          h('th', { scope: 'col', class: 'n' }, 'From previous'),
          h('th', { scope: 'col', class: 'n' }, 'From first'),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
  );
}

connectView('funnel', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('analytics.funnel returned no steps.');
      return;
    }
    draw(result.structuredContent as Funnel);
  },
});
