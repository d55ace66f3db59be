import { logSearch } from '@svc/tools-logs';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { contains } from '../sql/text-match';
import { listLogs } from './log-rows';

export const logSearchQuery = serve(logSearch, (ctx, input) =>
  listLogs(
    ctx,
    combine(
      equals('source', input.source),
      equals('trace_id', input.trace_id),
      equals('event_id', input.event_id),
      contains('message', input.search),
    ),
    'newest',
    input.limit,
  ),
);
