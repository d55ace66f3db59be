// apm.memory_growth: the sessions whose memory grows fastest, steepest first, each with its
// least-squares slope (a bar on the scale of the steepest), first and last sample, and the fit's r2;
// then the selected session's samples (apm.search through the host) with the tool's fitted line.

import type { apmMemoryGrowthOutput, apmSearchOutput } from '@svc/tools-apm';
import type { z } from 'zod';
import { connectView, type ViewHost } from './bridge';
import { meter, table } from './charts';
import { h, render, renderMessage } from './dom';
import { num } from './format';
import { type MemorySample, memoryChart } from './memory-chart';

type Growth = z.infer<typeof apmMemoryGrowthOutput>;
type Session = Growth['items'][number];
type Samples = z.infer<typeof apmSearchOutput>;

/** apm.memory_growth's metric (MEMORY_METRIC; a value import would bundle the tool package). */
const METRIC = 'memory_mb';
/** apm.search's largest page and its search text's longest. */
const SEARCH_LIMIT = 1000;
const SEARCH_MAX_CHARS = 200;

const host: ViewHost = connectView('memory-growth', {
  onResult(result) {
    if (result.isError || !result.structuredContent) {
      renderMessage('apm.memory_growth returned no sessions.');
      return;
    }
    draw(result.structuredContent as Growth);
  },
});

/** The session's samples in the tool's window; undefined when the host cannot call apm.search. */
async function samplesOf(session: Session, window: Growth['window']): Promise<MemorySample[] | undefined> {
  const result = await host.callTool('apm.search', {
    name: METRIC,
    // A substring: a longer id, or another id containing this one, also matches; kept out below.
    search: `session_id=${session.session_id}`.slice(0, SEARCH_MAX_CHARS),
    limit: SEARCH_LIMIT,
  });
  if (!result || result.isError || !result.structuredContent) return undefined;
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  return (result.structuredContent as Samples).items
    .filter((s) => s.session_id === session.session_id)
    .map((s) => ({ ms: Date.parse(s.timestamp), mb: s.value, timestamp: s.timestamp }))
    .filter((s) => s.ms >= from && s.ms <= to)
    .sort((a, b) => a.ms - b.ms);
}

function samplesSection(session: Session, samples: MemorySample[] | undefined): Node[] {
  const title = h('h2', {}, `Samples of session ${session.session_id}`);
  if (!samples)
    return [title, h('p', { role: 'status' }, 'The host did not return the samples (apm.search).')];
  if (samples.length === 0)
    return [
      title,
      h(
        'p',
        { role: 'status' },
        `apm.search found no samples, apm.memory_growth fitted ${num(session.samples)}.`,
      ),
    ];
  const same = samples.length === session.samples;
  return [
    title,
    h(
      'p',
      { role: 'status', 'data-found': String(samples.length) },
      same
        ? `${num(samples.length)} samples; the line rises ${num(session.slope_mb_per_min)} MB/min (r² ${num(session.r2)}).`
        : `apm.search found ${num(samples.length)} samples, apm.memory_growth fitted ${num(session.samples)}: no line drawn.`,
    ),
    memoryChart(samples, same ? session.slope_mb_per_min : null),
    h(
      'details',
      {},
      h('summary', {}, 'Samples (table)'),
      table(
        'Memory samples, oldest first',
        ['Time', 'MB'],
        samples.map((s) => ({ cells: [s.timestamp, num(s.mb)] })),
        [false, true],
      ),
    ),
  ];
}

function draw(data: Growth): void {
  const steepest = Math.max(0, ...data.items.map((s) => Math.abs(s.slope_mb_per_min)));
  const section = h('section', { 'aria-live': 'polite', 'data-samples': '' });
  const buttons: HTMLButtonElement[] = [];
  let shown = 0;
  const select = async (session: Session, button: HTMLButtonElement) => {
    const turn = ++shown;
    for (const b of buttons) b.setAttribute('aria-pressed', String(b === button));
    section.replaceChildren(h('p', { class: 'muted' }, 'Loading samples…'));
    const samples = await samplesOf(session, data.window);
    // A later selection wins over an answer that arrives after it.
    if (turn !== shown) return;
    section.dataset.session = session.session_id;
    section.replaceChildren(...samplesSection(session, samples));
  };
  const rows = data.items.map((s) => {
    const button = h('button', { type: 'button', 'aria-pressed': 'false' }, s.session_id);
    button.addEventListener('click', () => void select(s, button));
    buttons.push(button);
    return {
      cells: [
        button,
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
    };
  });
  render(
    h('h1', {}, 'Sessions with growing memory'),
    h('p', { class: 'muted' }, `${data.window.from} to ${data.window.to}`),
    table(
      'Sessions, steepest growth first (select one to see its samples)',
      ['Session', 'User', 'Samples', 'Slope (MB/min)', 'First MB', 'Last MB', 'Fit r²'],
      rows,
      [false, false, true, true, true, true, true],
    ),
    data.has_more
      ? h('p', { class: 'muted' }, `The ${num(data.limit)} steepest sessions; more qualified.`)
      : null,
    section,
  );
  const first = data.items[0];
  if (first && buttons[0]) void select(first, buttons[0]);
}
