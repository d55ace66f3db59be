import { defineTool, identifier, limit, listOf, searchText, traceId } from '@svc/tool-kit';
import { z } from 'zod';
import { logEntry, logSource } from './schemas';

export const logSearchInput = z.strictObject({
  search: searchText(
    'Text to find in log messages: case-insensitive literal substring (%, _, * match themselves).',
  ),
  source: logSource.optional(),
  trace_id: traceId.optional(),
  event_id: identifier('crash or event id a log line is linked to').optional(),
  limit: limit(20),
});
export const logSearchOutput = listOf(logEntry);

export const logSearch = defineTool({
  name: 'log.search',
  title: 'Search logs',
  description:
    'Returns log lines whose message contains a text (a literal substring, not a full-text index), ' +
    'newest first, optionally narrowed by source, trace_id or event_id. ' +
    'Call log.aggregate first for volumes by level or platform.',
  input: logSearchInput,
  output: logSearchOutput,
  capability: 'base',
  backend: 'core',
  example: { search: 'timeout', source: 'backend', limit: 20 },
});
