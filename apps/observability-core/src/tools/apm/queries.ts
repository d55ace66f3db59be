import type { AnyCoreTool } from '../core-tool';
import { apmMemoryGrowthQuery } from './apm-memory-growth';
import { apmSearchQuery } from './apm-search';
import { apmStatsQuery } from './apm-stats';
import { releaseHealthQuery } from './release-health';

/** Performance metrics and release health as the core serves them (@svc/tools-apm). */
export const apmQueries: readonly AnyCoreTool[] = [
  apmStatsQuery,
  apmSearchQuery,
  apmMemoryGrowthQuery,
  releaseHealthQuery,
];
