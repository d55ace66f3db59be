import { days, defineTool, identifier, window } from '@svc/tool-kit';
import { z } from 'zod';
import { signatureHistory } from './crash-summary';

/** The signature list is the head of the distribution; signature_count says how long it is. */
export const STATS_SIGNATURES_MAX = 100;

export const crashStatsInput = z.strictObject({
  days: days(14),
  app_version: identifier('app version to restrict to (exact match)').optional(),
});
export const crashStatsOutput = z.strictObject({
  window,
  app_version: z.string().nullable().describe('The version filter, null when all versions.'),
  total: z.number().int().describe('Crashes in the window.'),
  affected_users: z.number().int().describe('Distinct users with at least one crash.'),
  signature_count: z.number().int().describe('Distinct signatures in the window.'),
  signatures: z
    .array(
      z.strictObject({
        signature: z.string(),
        error_type: z.string().describe('Error type of the signature’s latest crash.'),
        count: z.number().int(),
        share: z.number().describe('count / total, 0..1.'),
        ...signatureHistory,
      }),
    )
    .describe(`Largest first, at most ${STATS_SIGNATURES_MAX}.`),
  daily: z
    .array(z.strictObject({ date: z.iso.date(), count: z.number().int() }))
    .describe('Crashes per UTC day of the window, oldest first, days without crashes as 0.'),
});

export const crashStats = defineTool({
  name: 'crash.stats',
  title: 'Crash statistics',
  description:
    'Crash overview of the last N days, optionally of one app version: total, affected users, the ' +
    'signature (issue) distribution with shares, first and last seen and app versions, and a zero-' +
    'filled daily UTC trend. Returns {window, app_version, total, affected_users, signature_count, ' +
    'signatures: [{signature, error_type, count, share, ...}], daily: [{date, count}]}. Start here ' +
    'for crashes.',
  input: crashStatsInput,
  output: crashStatsOutput,
  capability: 'base',
  overview: true,
  backend: 'core',
  example: { days: 14 },
});
