import { AGGREGATE_LIMIT_MAX, defineTool, limit, window } from '@svc/tool-kit';
import { z } from 'zod';
import { CRASH_GROUP_BY, signatureHistory } from './crash-summary';

const groupBy = z.enum(CRASH_GROUP_BY).describe('Dimension to count crashes by.');

export const crashAggregateInput = z.strictObject({
  group_by: groupBy,
  limit: limit(500, AGGREGATE_LIMIT_MAX),
});
/** The history fields are there when grouping by signature only. */
function partial<T extends Record<string, z.ZodType>>(shape: T) {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };
}

export const crashAggregateOutput = z.strictObject({
  window,
  group_by: groupBy,
  total: z.number().int().describe('All crashes in the window.'),
  groups: z.array(
    z.strictObject({
      key: z.string().nullable().describe('The dimension value; null for crashes without one.'),
      count: z.number().int().describe('Crashes in the group.'),
      users: z.number().int().describe('Distinct affected users in the group.'),
      ...partial(signatureHistory),
    }),
  ),
  limit: z.number().int(),
  has_more: z.boolean(),
});

export const crashAggregate = defineTool({
  name: 'crash.aggregate',
  title: 'Count crashes by dimension',
  description:
    'Crash counts of the last 14 days by signature, error_type, device_os, app_version or user_id, ' +
    "largest first, with distinct users; by signature also each issue's first and last seen and app " +
    'versions. Returns {window, group_by, total, groups: [{key, count, users, ...}], limit, ' +
    'has_more}. Then crash.by_signature or crash.by_user.',
  input: crashAggregateInput,
  output: crashAggregateOutput,
  capability: 'base',
  backend: 'core',
  example: { group_by: 'signature', limit: 20 },
});
