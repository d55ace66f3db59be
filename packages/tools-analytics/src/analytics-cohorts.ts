import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';
import { dayOffsetColumns, eventFilters, maxDay } from './retention-schemas';

export const COHORT_GRANULARITIES = ['day', 'week', 'month'] as const;

export const analyticsCohortsInput = z.strictObject({
  days: days(30),
  max_day: maxDay,
  granularity: z
    .enum(COHORT_GRANULARITIES)
    .default('day')
    .describe('Day-0 dates grouped by UTC day, ISO week (from Monday) or calendar month.'),
  ...eventFilters,
});
export const analyticsCohortsOutput = z.strictObject({
  window,
  granularity: z.enum(COHORT_GRANULARITIES),
  max_day: z.number().int(),
  cohorts: z
    .array(
      z.strictObject({
        cohort: z.iso.date().describe('First UTC date of the cohort period (the day, the Monday, the 1st).'),
        size: z.number().int().describe('Users whose day 0 falls in this period and in the window.'),
        days: dayOffsetColumns,
      }),
    )
    .describe('Every period overlapping the window, oldest first; periods without users have size 0.'),
});

export const analyticsCohorts = defineTool({
  name: 'analytics.cohorts',
  title: 'Retention by cohort',
  description:
    'The retention matrix of analytics.retention split by when users were first seen: cohorts by day ' +
    "0 (the UTC date of a user's first matching event, inside the last N days), grouped by day, ISO " +
    'week (Monday) or month; columns are day offsets 0..max_day. Returns {window, granularity, ' +
    'max_day, cohorts: [{cohort, size, days: [{day, retained, eligible, rate}]}]}, oldest first. Call' +
    ' analytics.retention first.',
  input: analyticsCohortsInput,
  output: analyticsCohortsOutput,
  capability: 'base',
  backend: 'core',
  example: { granularity: 'week', max_day: 14 },
});
