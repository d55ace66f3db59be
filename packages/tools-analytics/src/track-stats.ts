import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';

/** How many event names top_events lists at most. */
export const TOP_EVENTS_MAX = 100;

export const trackStatsInput = z.strictObject({ days: days(14) });
export const trackStatsOutput = z.strictObject({
  window,
  total: z.number().int().describe('Events in the window.'),
  unique_users: z.number().int().describe('Distinct users with an event in the window.'),
  top_events: z
    .array(z.strictObject({ event_name: z.string(), count: z.number().int(), users: z.number().int() }))
    .describe(`Up to ${TOP_EVENTS_MAX} event names, by count desc, then name.`),
  daily: z
    .array(z.strictObject({ date: z.iso.date(), count: z.number().int() }))
    .describe('Events per UTC day of the window, oldest first, days without events as 0.'),
});

export const trackStats = defineTool({
  name: 'track.stats',
  title: 'Tracking event statistics',
  description:
    'Totals of the tracking events of the last N days: event count, distinct users, the top 100 ' +
    'event names with their counts and users, and a zero-filled daily UTC trend. Returns {window, ' +
    'total, unique_users, top_events: [{event_name, count, users}], daily: [{date, count}]}. Start ' +
    'here, then track.recent for the raw events.',
  input: trackStatsInput,
  output: trackStatsOutput,
  capability: 'base',
  overview: true,
  backend: 'core',
  example: { days: 7 },
});
