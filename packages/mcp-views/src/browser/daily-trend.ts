// crash.stats and track.stats: the daily trend as bars, then the signature (or event name)
// distribution with each one's share or users, all as the tool answered.

import type { trackStatsOutput } from '@svc/tools-analytics';
import type { crashStatsOutput } from '@svc/tools-crash';
import type { z } from 'zod';
import { connectView } from './bridge';
import { barChart, meter, table } from './charts';
import { h, render, renderMessage } from './dom';
import { num, pct } from './format';

type CrashStats = z.infer<typeof crashStatsOutput>;
type TrackStats = z.infer<typeof trackStatsOutput>;

const day = (date: string) => date;

function window(w: { from: string; to: string }): HTMLElement {
  return h('p', { class: 'muted' }, `${w.from} to ${w.to}`);
}

function dailyTable(daily: { date: string; count: number }[], what: string): HTMLElement {
  return h(
    'details',
    {},
    h('summary', {}, `${what} per day (table)`),
    table(
      `${what} per UTC day`,
      ['Date', what],
      daily.map((d) => ({ cells: [day(d.date), num(d.count)], attributes: { 'data-date': d.date } })),
      [false, true],
    ),
  );
}

function drawCrashes(stats: CrashStats): void {
  render(
    h('h1', {}, stats.app_version === null ? 'Crashes' : `Crashes of ${stats.app_version}`),
    window(stats.window),
    h(
      'ul',
      { class: 'stats' },
      h('li', {}, h('strong', { 'data-field': 'total' }, num(stats.total)), 'crashes'),
      h(
        'li',
        {},
        h('strong', { 'data-field': 'affected_users' }, num(stats.affected_users)),
        'affected users',
      ),
      h('li', {}, h('strong', { 'data-field': 'signature_count' }, num(stats.signature_count)), 'signatures'),
    ),
    h('h2', {}, 'Crashes per day'),
    barChart(
      stats.daily.map((d) => ({ label: d.date, value: d.count })),
      'daily',
    ),
    dailyTable(stats.daily, 'Crashes'),
    table(
      'Signatures, largest first',
      ['Signature', 'Type', 'Crashes', 'Share', 'First seen', 'Last version'],
      stats.signatures.map((s) => ({
        cells: [
          s.signature,
          s.error_type,
          num(s.count),
          h('span', {}, meter(s.share), ' ', pct(s.share)),
          s.first_seen,
          s.last_app_version,
        ],
        attributes: { 'data-count': String(s.count), 'data-share': String(s.share) },
      })),
      [false, false, true, true, false, false],
    ),
  );
}

function drawEvents(stats: TrackStats): void {
  render(
    h('h1', {}, 'Tracking events'),
    window(stats.window),
    h(
      'ul',
      { class: 'stats' },
      h('li', {}, h('strong', { 'data-field': 'total' }, num(stats.total)), 'events'),
      h('li', {}, h('strong', { 'data-field': 'unique_users' }, num(stats.unique_users)), 'users'),
    ),
    h('h2', {}, 'Events per day'),
    barChart(
      stats.daily.map((d) => ({ label: d.date, value: d.count })),
      'daily',
    ),
    dailyTable(stats.daily, 'Events'),
    table(
      'Event names, most frequent first',
      ['Event', 'Events', 'Users'],
      stats.top_events.map((e) => ({
        cells: [e.event_name, num(e.count), num(e.users)],
        attributes: { 'data-count': String(e.count) },
      })),
      [false, true, true],
    ),
  );
}

connectView('daily-trend', {
  onResult(result) {
    const data = result.structuredContent;
    if (result.isError || !data) {
      renderMessage('The tool returned no statistics.');
      return;
    }
    if ('signatures' in data) drawCrashes(data as CrashStats);
    else if ('top_events' in data) drawEvents(data as TrackStats);
    else renderMessage('This view shows crash.stats and track.stats.');
  },
});
