import { logRecent } from '@svc/tools-logs';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { listLogs } from './log-rows';

/** Exact `level` match, newest first. */
export const logRecentQuery = serve(logRecent, (ctx, input) =>
  listLogs(
    ctx,
    combine(equals('level', input.level), equals('source', input.source), equals('trace_id', input.trace_id)),
    'newest',
    input.limit,
  ),
);
