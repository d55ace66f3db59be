import { z } from 'zod';

// Pieces shared by analytics.retention and analytics.cohorts (docs/semantics.md): the event
// filters, the day-offset range and one day-offset column.

/** Largest `max_day`: the default data retention (90 days), beyond which no event is kept. */
export const MAX_DAY_MAX = 90;

export const maxDay = z
  .number()
  .int()
  .min(0)
  .max(MAX_DAY_MAX)
  .default(7)
  .describe('Last day offset reported: columns for days 0..max_day.');

const filterValue = (what: string) => z.string().trim().min(1).max(200).optional().describe(`Exact ${what}.`);

/**
 * The event filters. A filtered cohort is computed over the matching events only: a user's first
 * event is the first event that matches every given filter, and activity means a matching event.
 */
export const eventFilters = {
  platform: filterValue('platform'),
  app_version: filterValue('app version'),
  utm_source: filterValue('properties.utm_source'),
  utm_medium: filterValue('properties.utm_medium'),
  utm_campaign: filterValue('properties.utm_campaign'),
};

export const dayOffsetColumn = z.strictObject({
  day: z.number().int().describe('Day offset d from the user’s day 0.'),
  retained: z.number().int().describe('Cohort users with a matching event on day0 + d (UTC).'),
  eligible: z.number().int().describe('Cohort users with day0 + d <= today (UTC).'),
  rate: z.number().min(0).max(1).nullable().describe('retained / eligible; null when eligible is 0.'),
});
export type DayOffsetColumn = z.infer<typeof dayOffsetColumn>;

export const dayOffsetColumns = z
  .array(dayOffsetColumn)
  .describe('One entry per day offset 0..max_day, in order.');
