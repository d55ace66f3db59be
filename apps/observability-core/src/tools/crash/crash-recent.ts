import { crashRecent } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { NO_FILTER } from '../sql/filter';
import { crashPage, toWithBreadcrumbs } from './crash-rows';

export const crashRecentQuery = serve(crashRecent, (ctx, input) =>
  crashPage(ctx, NO_FILTER, input.limit, toWithBreadcrumbs, true),
);
