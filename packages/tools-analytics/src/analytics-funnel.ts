import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';
import { eventFilters } from './retention-schemas';

/** Bounds of `steps` (docs/tools.md). */
export const FUNNEL_STEPS_MIN = 2;
export const FUNNEL_STEPS_MAX = 10;
/** Largest `window_hours`: a year, the longest `days` window. */
export const WINDOW_HOURS_MAX = 365 * 24;

export const analyticsFunnelInput = z.strictObject({
  steps: z
    .array(z.string().min(1).max(200))
    .min(FUNNEL_STEPS_MIN)
    .max(FUNNEL_STEPS_MAX)
    .describe('Exact event names in order; a name may repeat (one event can meet a step and its repeat).'),
  days: days(14),
  window_hours: z
    .number()
    .int()
    .min(1)
    .max(WINDOW_HOURS_MAX)
    .default(24)
    .describe("Hours from a user's first step within which the later steps must happen."),
  ...eventFilters,
});

const ratio = (what: string) =>
  z.number().min(0).max(1).nullable().describe(`${what}; null when that is 0 users.`);

export const funnelStep = z.strictObject({
  step: z.number().int().describe('1-based position in `steps`.'),
  event_name: z.string(),
  users: z.number().int().describe('Users who reached this step (and so every earlier one).'),
  conversion_from_previous: ratio('users / users of the previous step (1 for step 1)'),
  conversion_from_first: ratio('users / users of step 1'),
});

export const analyticsFunnelOutput = z.strictObject({
  window,
  window_hours: z.number().int(),
  steps: z.array(funnelStep).describe('One entry per requested step, in order.'),
  overall_conversion: ratio('users of the last step / users of step 1'),
});

export const analyticsFunnel = defineTool({
  name: 'analytics.funnel',
  title: 'Conversion funnel',
  description:
    'Ordered funnel over the events of the last N days that match the filters (platform, app_version,' +
    ' utm_*). A user reaches step k when events named steps 1..k occur in order (equal timestamps ' +
    'count in step order), the k-th within window_hours of the first. Returns {window, window_hours, ' +
    'steps: [{step, event_name, users, conversion_from_previous, conversion_from_first}], ' +
    'overall_conversion}. Call analytics.dimensions first for filter values.',
  input: analyticsFunnelInput,
  output: analyticsFunnelOutput,
  capability: 'base',
  backend: 'core',
  example: { steps: ['app_open', 'view_item', 'add_to_cart', 'checkout', 'purchase'], days: 14 },
});
