// A plain, independent reading of docs/semantics.md for analytics.retention and
// analytics.cohorts, for the tests: loops over the raw records, no SQL, no shared code with the
// tools. Dates are compared as 'YYYY-MM-DD' strings and days walked with Date arithmetic.

export interface RefEvent {
  timestamp: string;
  user_id: string;
  event_name: string;
  platform?: string;
  app_version?: string;
  properties?: Record<string, unknown>;
}

export interface RefFilters {
  platform?: string;
  app_version?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
}

export interface RefColumn {
  day: number;
  retained: number;
  eligible: number;
  rate: number | null;
}

const DAY = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

function matches(e: RefEvent, f: RefFilters): boolean {
  // The utm columns hold a property as text: a string as it is, another value as its JSON text,
  // nothing (absent or null) as ''.
  const prop = (k: string) => {
    const v = e.properties?.[k];
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  if (f.platform !== undefined && (e.platform ?? '') !== f.platform) return false;
  if (f.app_version !== undefined && (e.app_version ?? '') !== f.app_version) return false;
  if (f.utm_source !== undefined && prop('utm_source') !== f.utm_source) return false;
  if (f.utm_medium !== undefined && prop('utm_medium') !== f.utm_medium) return false;
  if (f.utm_campaign !== undefined && prop('utm_campaign') !== f.utm_campaign) return false;
  return true;
}

interface CohortUser {
  day0: string;
  activeDates: Set<string>;
}

/** Users whose first matching event (not after now) lies in [now - days, now]. */
function cohortUsers(events: RefEvent[], now: number, days: number, filters: RefFilters): CohortUser[] {
  const first = new Map<string, number>();
  const active = new Map<string, Set<string>>();
  for (const e of events) {
    const t = Date.parse(e.timestamp);
    if (t > now || !matches(e, filters)) continue;
    const seen = first.get(e.user_id);
    if (seen === undefined || t < seen) first.set(e.user_id, t);
    const dates = active.get(e.user_id) ?? new Set<string>();
    dates.add(utcDate(t));
    active.set(e.user_id, dates);
  }
  const out: CohortUser[] = [];
  for (const [user, t] of first) {
    if (t >= now - days * DAY) out.push({ day0: utcDate(t), activeDates: active.get(user)! });
  }
  return out;
}

function columns(users: CohortUser[], today: string, maxDay: number): RefColumn[] {
  const out: RefColumn[] = [];
  for (let d = 0; d <= maxDay; d++) {
    let retained = 0;
    let eligible = 0;
    for (const u of users) {
      const date = addDays(u.day0, d);
      if (u.activeDates.has(date)) retained++;
      if (date <= today) eligible++;
    }
    out.push({
      day: d,
      retained,
      eligible,
      rate: eligible === 0 ? null : Number((retained / eligible).toPrecision(13)),
    });
  }
  return out;
}

export function referenceRetention(
  events: RefEvent[],
  opts: { now: number; days: number; maxDay: number; filters: RefFilters },
) {
  const users = cohortUsers(events, opts.now, opts.days, opts.filters);
  return { cohort_size: users.length, days: columns(users, utcDate(opts.now), opts.maxDay) };
}

/** The period's first date: the date itself, the Monday on or before it, or the 1st of its month. */
export function referencePeriod(date: string, granularity: 'day' | 'week' | 'month'): string {
  if (granularity === 'day') return date;
  if (granularity === 'month') return `${date.slice(0, 7)}-01`;
  let d = date;
  while (new Date(`${d}T00:00:00Z`).getUTCDay() !== 1) d = addDays(d, -1);
  return d;
}

export function referenceCohorts(
  events: RefEvent[],
  opts: {
    now: number;
    days: number;
    maxDay: number;
    filters: RefFilters;
    granularity: 'day' | 'week' | 'month';
  },
) {
  const users = cohortUsers(events, opts.now, opts.days, opts.filters);
  const today = utcDate(opts.now);
  const periods: string[] = [];
  for (let date = utcDate(opts.now - opts.days * DAY); date <= today; date = addDays(date, 1)) {
    const p = referencePeriod(date, opts.granularity);
    if (!periods.includes(p)) periods.push(p);
  }
  return periods.map((cohort) => {
    const members = users.filter((u) => referencePeriod(u.day0, opts.granularity) === cohort);
    return { cohort, size: members.length, days: columns(members, today, opts.maxDay) };
  });
}
