// release.health: the versions side by side, each with its score and grade and every component
// (the tool's 0..1 component scores and the measurements they come from).

import type { releaseHealthOutput } from '@svc/tools-apm';
import type { z } from 'zod';
import { connectView } from './bridge';
import { meter } from './charts';
import { h, render, renderMessage } from './dom';
import { exact, ms, num, pct } from './format';

type Health = z.infer<typeof releaseHealthOutput>;
type Release = Health['releases'][number];

const COMPONENTS: { key: keyof Release['components']; label: string; measure: (r: Release) => string }[] = [
  { key: 'crash_free', label: 'Crash-free sessions', measure: (r) => pct(r.crash_free_session_rate) },
  { key: 'anr', label: 'ANR rate', measure: (r) => pct(r.anr_rate) },
  { key: 'startup', label: 'Startup p95', measure: (r) => ms(r.startup_p95_ms) },
  { key: 'fps', label: 'Average fps', measure: (r) => (r.fps_avg === null ? '–' : num(r.fps_avg)) },
];

function draw(data: Health): void {
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'Measure'),
    ...data.releases.map((r) => h('th', { scope: 'col', class: 'n' }, r.version)),
  );
  const row = (label: string, cell: (r: Release) => (Node | string)[], field: string) =>
    h(
      'tr',
      { 'data-row': field },
      h('th', { scope: 'row' }, label),
      ...data.releases.map((r) => h('td', { class: 'n', 'data-version': r.version }, ...cell(r))),
    );
  render(
    h('h1', {}, 'Release health'),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    // Many versions are wider than a narrow frame: the table scrolls sideways in its own box, the
    // rest of the view stays put (a cut-off column would hide a version's numbers). Focusable, so
    // a keyboard can scroll it too.
    h(
      'div',
      { class: 'scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Versions side by side' },
      h(
        'table',
        {},
        h('caption', {}, 'Versions side by side'),
        h('thead', {}, head),
        h(
          'tbody',
          {},
          row(
            'Score',
            (r) => [h('span', { 'data-value': exact(r.score) }, r.score === null ? '–' : num(r.score))],
            'score',
          ),
          row(
            'Grade',
            (r) => [h('span', { class: 'grade' }, r.grade ?? (r.found ? '–' : 'no data'))],
            'grade',
          ),
          row('Sessions', (r) => [num(r.sessions)], 'sessions'),
          ...COMPONENTS.map((c) =>
            row(
              c.label,
              (r) => [
                c.measure(r),
                h('br'),
                meter(r.components[c.key]),
                ' ',
                h(
                  'span',
                  { class: 'muted', 'data-value': exact(r.components[c.key]) },
                  `component ${pct(r.components[c.key])}`,
                ),
              ],
              c.key,
            ),
          ),
        ),
      ),
    ),
  );
}

connectView('release-health', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('release.health returned no releases.');
      return;
    }
    draw(result.structuredContent as Health);
  },
});
