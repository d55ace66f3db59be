import { crashByUser } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { crashPage, toSummary } from './crash-rows';

export const crashByUserQuery = serve(crashByUser, (ctx, input) =>
  crashPage(ctx, equalsKey('user_id', input.user_id), input.limit, toSummary),
);
