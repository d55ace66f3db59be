import { logBySession } from '@svc/tools-logs';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { listLogs } from './log-rows';

/** Oldest first: a session reads as a story. */
export const logBySessionQuery = serve(logBySession, (ctx, input) =>
  listLogs(ctx, equalsKey('session_id', input.session_id), 'oldest', input.limit),
);
