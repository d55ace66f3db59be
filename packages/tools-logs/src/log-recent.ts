import { defineTool, limit, listOf, traceId } from '@svc/tool-kit';
import { z } from 'zod';
import { logEntry, logLevelFilter, logSource } from './schemas';

export const logRecentInput = z.strictObject({
  level: logLevelFilter.optional(),
  source: logSource.optional(),
  trace_id: traceId.optional(),
  limit: limit(20),
});
export const logRecentOutput = listOf(logEntry);

export const logRecent = defineTool({
  name: 'log.recent',
  title: 'Recent logs',
  description:
    'Returns the most recent log lines, newest first, optionally only one level (any case), one source or one ' +
    'trace. Use log.aggregate first for counts, log.search to find a text.',
  input: logRecentInput,
  output: logRecentOutput,
  capability: 'base',
  backend: 'core',
  example: { level: 'ERROR', limit: 20 },
});
