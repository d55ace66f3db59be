import type { RefEvent } from './retention-reference';

// Hand-built events for the retention and cohorts tests, each user placed on a boundary the
// definition turns on (docs/semantics.md): the window start, UTC midnight, a Sunday/Monday, a
// month's last and first day, a first event before the window, a first event that only matches
// under a filter, events after now. `inCohort30` (beside the events) lists who the 30-day,
// unfiltered cohort is, worked out by hand, to keep the reference honest.

const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/** Today at 12:17 UTC: a partial today, a window starting at 12:17 too. */
export function testNow(): number {
  return startOfDay(Date.now()) + 12 * HOUR + 17 * 60_000;
}

export function edgeCaseEvents(now: number): { events: RefEvent[]; inCohort30: string[] } {
  const today = startOfDay(now);
  const events: RefEvent[] = [];
  const ev = (user: string, t: number, extra: Partial<RefEvent> = {}) =>
    events.push({ timestamp: new Date(t).toISOString(), user_id: user, event_name: 'app_open', ...extra });
  const inCohort30: string[] = [];

  // Window edges (days 30): [now - 30d, now] inclusive.
  ev('edge_in', now - 30 * DAY);
  ev('edge_in', now - 29 * DAY);
  inCohort30.push('edge_in');
  ev('edge_out', now - 30 * DAY - 1);
  ev('edge_out', now - 20 * DAY);
  // First event long before the window; active inside it: not a cohort member.
  ev('old_user', now - 45 * DAY);
  ev('old_user', now - 3 * DAY);
  ev('old_user', now - 2 * DAY);
  // UTC midnight: the last millisecond of a day and the first of the next are offsets 0 and 1.
  ev('midnight', today - 10 * DAY - 1);
  ev('midnight', today - 10 * DAY);
  ev('midnight', today - 10 * DAY + 1);
  ev('midnight', today - 8 * DAY + 5 * HOUR);
  inCohort30.push('midnight');
  ev('at_midnight', today - 12 * DAY, { platform: 'ios' });
  ev('at_midnight', today - 11 * DAY - 1, { platform: 'ios' });
  inCohort30.push('at_midnight');
  // Now and after: an event at now counts, later ones never.
  ev('at_now', now);
  inCohort30.push('at_now');
  ev('future', now + 1);
  ev('future', now + DAY);
  ev('late_today', now - 5 * DAY);
  ev('late_today', now + HOUR); // day 5 activity only after now: not retained
  inCohort30.push('late_today');

  // ISO week boundary: the last Sunday at least 3 days back, its last ms, and the Monday after.
  let sunday = today - 3 * DAY;
  while (new Date(sunday).getUTCDay() !== 0) sunday -= DAY;
  ev('sunday_late', sunday + DAY - 1, { platform: 'android' });
  ev('sunday_late', sunday + DAY + HOUR, { platform: 'android' });
  ev('monday_early', sunday + DAY, { platform: 'android' });
  ev('monday_early', sunday + 2 * DAY, { platform: 'android' });
  inCohort30.push('sunday_late', 'monday_early');

  // Month boundary: the 1st of the month holding (today - 2 days), and the day before it.
  const twoBack = new Date(today - 2 * DAY);
  const first = Date.UTC(twoBack.getUTCFullYear(), twoBack.getUTCMonth(), 1);
  ev('month_last', first - 1, { properties: { utm_source: 'newsletter', utm_medium: 'email' } });
  ev('month_last', first + 1, { properties: { utm_source: 'newsletter', utm_medium: 'email' } });
  ev('month_first', first, { properties: { utm_source: 'ads', utm_campaign: 'spring' } });
  ev('month_first', first + 3 * DAY, { properties: { utm_source: 'ads', utm_campaign: 'spring' } });
  // Near the start of a month the 1st may lie before a 30-day window.
  if (first - 1 >= now - 30 * DAY) inCohort30.push('month_last');
  if (first >= now - 30 * DAY) inCohort30.push('month_first');

  // Filter-dependent first event: first seen on android before the window, first iOS event
  // inside it. In the iOS cohort, not in the unfiltered one.
  ev('switcher', now - 40 * DAY, { platform: 'android', app_version: '1.0.0' });
  ev('switcher', now - 6 * DAY, { platform: 'ios', app_version: '2.0.0' });
  ev('switcher', now - 4 * DAY, { platform: 'ios', app_version: '2.0.0' });
  ev('switcher', now - 4 * DAY + HOUR, { platform: 'ios', app_version: '2.0.0' }); // same day twice
  // A utm value that is a number matches its text.
  ev('numeric_utm', now - 7 * DAY, { properties: { utm_source: 5 } });
  inCohort30.push('numeric_utm');
  // Active far beyond max_day, and every day for a while (timestamps tie across users here).
  for (let d = 0; d <= 20; d++) {
    ev('daily', today - 25 * DAY + d * DAY + 9 * HOUR, { platform: 'web' });
    ev('daily_twin', today - 25 * DAY + d * DAY + 9 * HOUR, { platform: 'web' });
  }
  ev('daily', today - 25 * DAY + 22 * DAY + 9 * HOUR, { platform: 'web' });
  inCohort30.push('daily', 'daily_twin');
  return { events, inCohort30 };
}

/** Small deterministic generator: `users` users, first seen up to `spanDays` back, sparse activity. */
export function generatedEvents(now: number, users: number, spanDays: number, seed: number): RefEvent[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: RefEvent[] = [];
  for (let u = 0; u < users; u++) {
    let t = now - Math.floor(rnd() * spanDays * DAY);
    const source = pick(['google', 'ads', 'newsletter', undefined]);
    const platform = pick(['ios', 'android', 'web']);
    while (t <= now + DAY) {
      out.push({
        timestamp: new Date(t).toISOString(),
        user_id: `g_${u}`,
        event_name: pick(['app_open', 'view_item', 'purchase']),
        platform: rnd() < 0.9 ? platform : pick(['ios', 'android']),
        app_version: pick(['1.0.0', '2.0.0']),
        properties: source ? { utm_source: source, utm_medium: pick(['cpc', 'email']) } : {},
      });
      t += Math.floor(rnd() * 4 * DAY);
    }
  }
  return out;
}
