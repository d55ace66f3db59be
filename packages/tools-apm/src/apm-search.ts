import { defineTool, keyedRecord, limit, listOf, searchText } from '@svc/tool-kit';
import { z } from 'zod';

export const apmSearchInput = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('Exact metric name (app_start_ms, fps, memory_mb, ...).')
    .optional(),
  search: searchText(
    'Text to find in the metric name, its attributes, session_id or user_id (each as key=value): ' +
      'case-insensitive literal substring.',
  ).optional(),
  limit: limit(20),
});

export const apmSample = z.strictObject({
  timestamp: z.iso.datetime(),
  name: z.string(),
  value: z.number(),
  unit: z.string().nullable(),
  platform: z.string().nullable(),
  app_version: z.string().nullable(),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  attributes: keyedRecord(z.string(), z.string()),
});
export type ApmSample = z.infer<typeof apmSample>;

export const apmSearchOutput = listOf(apmSample);

export const apmSearch = defineTool({
  name: 'apm.search',
  title: 'Performance samples',
  description:
    'Raw performance samples one by one, newest first, optionally one exact metric name and a text ' +
    'found in the name or the attributes (key=value). Returns items {timestamp, name, value, unit,' +
    ' session_id, attributes, ...}. Call apm.stats first for the distribution of ' +
    'each metric.',
  input: apmSearchInput,
  output: apmSearchOutput,
  capability: 'base',
  backend: 'core',
  example: { name: 'app_start_ms', limit: 20 },
});
