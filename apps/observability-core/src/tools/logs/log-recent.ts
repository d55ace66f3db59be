import { logRecent } from '@svc/tools-logs';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { listLogs } from './log-rows';

/**
 * Exact `level` match, newest first. Without a level or source it is a point query: the newest
 * rows of the project in sort-key order, or a trace's rows by its bloom filter.
 */
export const logRecentQuery = serve(logRecent, (ctx, input) =>
  listLogs(
    ctx,
    combine(equals('level', input.level), equals('source', input.source), equals('trace_id', input.trace_id)),
    'newest',
    input.limit,
    input.level === undefined && input.source === undefined,
  ),
);
