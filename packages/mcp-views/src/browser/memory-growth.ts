// apm.memory_growth: the sessions whose memory grows fastest, steepest first, each with its
// least-squares slope (a bar on the scale of the steepest), first and last sample, and the fit's r2.
// apm.search cannot select one session's samples, so the view draws no samples of its own.

import type { apmMemoryGrowthOutput } from '@svc/tools-apm';
import type { z } from 'zod';
import { connectView } from './bridge';
import { meter, table } from './charts';
import { h, render, renderMessage } from './dom';
import { num } from './format';

type Growth = z.infer<typeof apmMemoryGrowthOutput>;

function draw(data: Growth): void {
  const steepest = Math.max(0, ...data.items.map((s) => Math.abs(s.slope_mb_per_min)));
  render(
    h('h1', {}, 'Sessions with growing memory'),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    table(
      'Sessions, steepest growth first',
      ['Session', 'User', 'Samples', 'Slope (MB/min)', 'First MB', 'Last MB', 'Fit r²'],
      data.items.map((s) => ({
        cells: [
          s.session_id,
          s.user_id ?? '–',
          num(s.samples),
          h(
            'span',
            {},
            meter(steepest > 0 ? Math.abs(s.slope_mb_per_min) / steepest : 0),
            ' ',
            num(s.slope_mb_per_min),
          ),
          num(s.first_mb),
          num(s.last_mb),
          num(s.r2),
        ],
        attributes: { 'data-session': s.session_id, 'data-slope': String(s.slope_mb_per_min) },
      })),
      [false, false, true, true, true, true, true],
    ),
    data.has_more
      ? h('p', { class: 'muted' }, `The ${num(data.limit)} steepest sessions; more qualified.`)
      : null,
  );
}

connectView('memory-growth', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('apm.memory_growth returned no sessions.');
      return;
    }
    draw(result.structuredContent as Growth);
  },
});
