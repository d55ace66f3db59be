import { logByUser } from '@svc/tools-logs';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { listLogs } from './log-rows';

export const logByUserQuery = serve(logByUser, (ctx, input) =>
  listLogs(ctx, equalsKey('user_id', input.user_id), 'newest', input.limit),
);
