import type { AnyCoreTool } from '../core-tool';
import { apmSearchQuery } from './apm-search';
import { apmStatsQuery } from './apm-stats';

/** Performance metrics and release health as the core serves them (@svc/tools-apm). */
export const apmQueries: readonly AnyCoreTool[] = [apmStatsQuery, apmSearchQuery];
