import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';

/** The filter dimensions of the analytics tools, in the order they are reported. */
export const DIMENSIONS = ['platform', 'app_version', 'utm_source', 'utm_medium', 'utm_campaign'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Values listed per dimension at most. */
export const DIMENSION_VALUES_MAX = 100;

export const analyticsDimensionsInput = z.strictObject({ days: days(30) });

const dimensionValues = z.strictObject({
  values: z
    .array(z.strictObject({ value: z.string(), count: z.number().int().describe('Events with this value.') }))
    .describe(
      `Up to ${DIMENSION_VALUES_MAX} values, by count desc, then value; events without one are not listed.`,
    ),
  has_more: z.boolean().describe(`True when the dimension has more than ${DIMENSION_VALUES_MAX} values.`),
});

export const analyticsDimensionsOutput = z.strictObject({
  window,
  dimensions: z.strictObject({
    platform: dimensionValues,
    app_version: dimensionValues,
    utm_source: dimensionValues,
    utm_medium: dimensionValues,
    utm_campaign: dimensionValues,
  }),
});

export const analyticsDimensions = defineTool({
  name: 'analytics.dimensions',
  title: 'Analytics filter values',
  description:
    'The actual values of each analytics filter dimension (platform, app_version, utm_source, ' +
    'utm_medium, utm_campaign) in the tracking events of the last N days, with event counts, top ' +
    '100 by count. Returns {window, dimensions: {<dimension>: {values: [{value, count}], ' +
    'has_more}}}. Start here, then pass a value to analytics.funnel, retention or cohorts.',
  input: analyticsDimensionsInput,
  output: analyticsDimensionsOutput,
  capability: 'base',
  backend: 'core',
  example: { days: 30 },
});
