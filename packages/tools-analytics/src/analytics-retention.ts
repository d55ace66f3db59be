import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';
import { dayOffsetColumns, eventFilters, maxDay } from './retention-schemas';

export const analyticsRetentionInput = z.strictObject({ days: days(30), max_day: maxDay, ...eventFilters });
export const analyticsRetentionOutput = z.strictObject({
  window,
  max_day: z.number().int(),
  cohort_size: z
    .number()
    .int()
    .describe('Users whose first matching event ever (up to now) falls inside the window.'),
  days: dayOffsetColumns,
});

export const analyticsRetention = defineTool({
  name: 'analytics.retention',
  title: 'Day-N retention',
  description:
    'Day-N retention of the users first seen in the last N days (cohort: the users whose first event ' +
    'matching the filters falls in the window; day 0 is that UTC date). Per day 0..max_day: retained ' +
    'users (a matching event that day), eligible users (day reached by today) and rate (null when ' +
    'none eligible). Returns {window, max_day, cohort_size, days: [{day, retained, eligible, rate}]}.' +
    ' Call analytics.dimensions first for filter values.',
  input: analyticsRetentionInput,
  output: analyticsRetentionOutput,
  capability: 'base',
  backend: 'core',
  example: { days: 30, max_day: 7, platform: 'ios' },
});
