import { days, defineTool, identifier, window } from '@svc/tool-kit';
import { z } from 'zod';

export const experimentResultsInput = z.strictObject({
  experiment_key: identifier('experiment key (the experiment_key property of its $exposure events)'),
  days: days(14),
  baseline: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "Variant to compare against; default the definition's baseline, else `control`, else the first by name.",
    ),
});

const zTest = z
  .strictObject({
    z: z.number(),
    p_value: z.number(),
    ci_low: z.number().describe('95% CI of rate - baseline rate (unpooled standard error), lower end.'),
    ci_high: z.number(),
    significant: z.boolean().describe('p_value < 0.05.'),
  })
  .nullable()
  .describe('Pooled two-proportion z test vs the baseline; null on the baseline row and when undefined.');

const sequential = z
  .strictObject({
    p_value: z.number().describe('Always-valid mSPRT p-value over the daily looks of the window.'),
    significant: z.boolean().describe('p_value < 0.05.'),
  })
  .nullable()
  .describe('Always-valid sequential test vs the baseline; null on the baseline row or without a goal.');

export const experimentVariant = z.strictObject({
  variant: z.string(),
  is_baseline: z.boolean(),
  exposed: z.number().int().describe('Users whose first exposure in the window was to this variant.'),
  converted: z
    .number()
    .int()
    .nullable()
    .describe('Of those, users with a goal event at or after it; null without a goal.'),
  rate: z
    .number()
    .nullable()
    .describe('converted / exposed; null when nobody was exposed or without a goal.'),
  lift: z
    .number()
    .nullable()
    .describe('(rate - baseline rate) / baseline rate; null on the baseline row or when undefined.'),
  z_test: zTest,
  sequential,
});

/** Keys an unknown key's answer lists at most. */
export const KNOWN_KEYS = 50;

export const experimentResultsOutput = z.strictObject({
  experiment_key: z.string(),
  found: z
    .boolean()
    .describe('False when the key has neither a definition nor any exposure; variants is then empty.'),
  window,
  goal_event: z
    .string()
    .nullable()
    .describe('From the experiment definition; null when the experiment has none.'),
  baseline: z.string().nullable(),
  variants: z.array(experimentVariant).describe('Baseline first, then the other variants by name.'),
  known_keys: z
    .array(z.string())
    .optional()
    .describe(
      `Only when found is false: the project's experiment keys, most recently active first (at most ${KNOWN_KEYS}).`,
    ),
});

export const experimentResults = defineTool({
  name: 'experiment.results',
  title: 'Experiment results',
  description:
    'A/B test results over the last N days: per variant exposed users (the first exposure in the ' +
    'window decides the variant), conversions to the goal event, rate, lift vs the baseline, a z test' +
    ' (z, two-sided p, 95% CI of the difference) and an always-valid sequential p-value (mSPRT). ' +
    'Returns {experiment_key, found, goal_event, baseline, variants: [{variant, exposed, converted, ' +
    'rate, lift, z_test, sequential}], ...}; found is false for an unknown key, with the known keys.',
  input: experimentResultsInput,
  output: experimentResultsOutput,
  capability: 'base',
  backend: 'core',
  example: { experiment_key: 'checkout_cta_v2' },
});
