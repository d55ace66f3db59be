import { AGGREGATE_LIMIT_MAX, defineTool, limit, window } from '@svc/tool-kit';
import { z } from 'zod';

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
    }),
  ),
  limit: z.number().int(),
  has_more: z.boolean(),
});

export const logAggregate = defineTool({
  name: 'log.aggregate',
  title: 'Count logs by dimension',
  description:
    'Counts of the log lines of the last 24 hours grouped by level, user_id or platform, largest first. ' +
    'Returns {window, group_by, total, groups: [{key, count}], limit, has_more}. Start here, then use ' +
    'log.recent or log.search for the lines themselves.',
  input: logAggregateInput,
  output: logAggregateOutput,
  capability: 'base',
  overview: true,
  backend: 'core',
});
