import { AGGREGATE_LIMIT_MAX, defineTool, limit, window } from '@svc/tool-kit';
import { z } from 'zod';

/** log.aggregate's window is 24 hours; each group also gives its count per hour of it. */
export const AGGREGATE_HOURS = 24;

export const logAggregateInput = z.strictObject({
  group_by: z.enum(['level', 'user_id', 'platform']).describe('Dimension to count logs by.'),
  limit: limit(500, AGGREGATE_LIMIT_MAX),
});
export const logAggregateOutput = z.strictObject({
  window,
  group_by: z.enum(['level', 'user_id', 'platform']),
  total: z.number().int().describe('All log lines in the window.'),
  groups: z.array(
    z.strictObject({
      key: z.string().nullable().describe('The dimension value; null for lines without one.'),
      count: z.number().int(),
      hourly: z
        .array(z.number().int())
        .length(AGGREGATE_HOURS)
        .describe(
          'Lines per hour of the window, oldest first: entry i counts [from + i h, from + (i + 1) h), ' +
            'the last hour including `to`; zero-filled, so a spike shows without paging lines.',
        ),
    }),
  ),
  limit: z.number().int(),
  has_more: z.boolean(),
});

export const logAggregate = defineTool({
  name: 'log.aggregate',
  title: 'Count logs by dimension',
  description:
    'Counts of the log lines of the last 24 hours grouped by level, user_id or platform, largest ' +
    'first, each with its 24 hourly counts (oldest first) to spot spikes. Returns {window, group_by, ' +
    'total, groups: [{key, count, hourly}], limit, has_more}. Start here, then log.recent or ' +
    'log.search for the lines.',
  input: logAggregateInput,
  output: logAggregateOutput,
  capability: 'base',
  overview: true,
  backend: 'core',
  example: { group_by: 'level' },
});
