import { days, defineTool, window } from '@svc/tool-kit';
import { z } from 'zod';

export const apmStatsInput = z.strictObject({ days: days(14) });

const metricStats = z.strictObject({
  name: z.string().describe('Metric name as sent (app_start_ms, fps, memory_mb, ...).'),
  unit: z
    .string()
    .nullable()
    .describe(
      'The unit sent with the samples (the first by name if they disagree); null when none was sent.',
    ),
  count: z.number().int().describe('Samples in the window.'),
  avg: z.number(),
  p50: z.number(),
  p95: z.number(),
  p99: z.number(),
  min: z.number(),
  max: z.number(),
});

export const apmStatsOutput = z.strictObject({
  window,
  metrics: z
    .array(metricStats)
    .describe(
      'One entry per metric name with samples in the window, by name. Percentiles are exact, ' +
        'interpolated linearly between the closest ranks (numpy default).',
    ),
});

export const apmStats = defineTool({
  name: 'apm.stats',
  title: 'Performance metric statistics',
  description:
    'Per performance metric over the last N days (default 14): sample count, average, p50, p95, p99, ' +
    'min and max (exact percentiles, interpolated between the closest ranks). Returns {window, ' +
    'metrics: [{name, unit, count, avg, p50, p95, p99, min, max}]}, by name. Start here for ' +
    'performance questions.',
  input: apmStatsInput,
  output: apmStatsOutput,
  capability: 'base',
  overview: true,
  backend: 'core',
  example: { days: 7 },
});
