import type { COHORT_GRANULARITIES } from '@svc/tools-analytics';
import { DAY_MS } from '../../storage/time';

export type Granularity = (typeof COHORT_GRANULARITIES)[number];

// Days are counted since 1970-01-01 UTC (a Thursday), so every period start is a day number too.

/** The first day of the period holding `day`: itself, its ISO week's Monday, or its month's 1st. */
export function periodStart(day: number, granularity: Granularity): number {
  if (granularity === 'day') return day;
  if (granularity === 'week') return day - ((((day + 3) % 7) + 7) % 7);
  const d = new Date(day * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
}

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: number, granularity: Granularity): number {
  if (granularity === 'day') return start + 1;
  if (granularity === 'week') return start + 7;
  const d = new Date(start * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
}
