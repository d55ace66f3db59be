import { days, defineTool, limit, window } from '@svc/tool-kit';
import { z } from 'zod';

/** The metric whose growth is measured, in megabytes. */
export const MEMORY_METRIC = 'memory_mb';
/** Fewer samples than this say nothing about a trend. */
export const MIN_MEMORY_SAMPLES = 3;

export const apmMemoryGrowthInput = z.strictObject({ days: days(14), limit: limit(20) });

const sessionGrowth = z.strictObject({
  session_id: z.string(),
  user_id: z.string().nullable().describe("The session's user (the latest one sent with its samples)."),
  samples: z
    .number()
    .int()
    .describe(`${MEMORY_METRIC} samples of the session in the window (>= ${MIN_MEMORY_SAMPLES}).`),
  slope_mb_per_min: z.number().describe('Least-squares slope of MB against minutes.'),
  first_mb: z.number().describe('The earliest sample.'),
  last_mb: z.number().describe('The latest sample.'),
  r2: z
    .number()
    .min(0)
    .max(1)
    .describe('How well a straight line fits the samples (1: exactly, also for constant memory).'),
});

export const apmMemoryGrowthOutput = z.strictObject({
  window,
  items: z.array(sessionGrowth).describe('Steepest growth first; then by session id.'),
  limit: z.number().int(),
  has_more: z.boolean().describe('True when more sessions qualified than `limit`.'),
});

export const apmMemoryGrowth = defineTool({
  name: 'apm.memory_growth',
  title: 'Sessions with growing memory',
  description:
    `Sessions of the last N days (default 14) whose memory grows fastest (suspected leaks): per session with ` +
    `at least ${MIN_MEMORY_SAMPLES} ${MEMORY_METRIC} samples, the least-squares slope of MB per minute and the ` +
    "fit's r2, steepest first. Returns {window, items: [{session_id, user_id, samples, slope_mb_per_min, " +
    'first_mb, last_mb, r2}], limit, has_more}. Call apm.stats first; session.detail shows what a session did.',
  input: apmMemoryGrowthInput,
  output: apmMemoryGrowthOutput,
  capability: 'base',
  backend: 'core',
  example: { days: 7, limit: 10 },
});
