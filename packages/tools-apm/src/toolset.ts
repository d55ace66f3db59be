import type { AnyTool } from '@svc/tool-kit';
import { apmMemoryGrowth } from './apm-memory-growth';
import { apmSearch } from './apm-search';
import { apmStats } from './apm-stats';
import { releaseHealth } from './release-health';

/** Tools of this group, in catalog order. Each lives in its own file. */
export const apmTools: readonly AnyTool[] = [apmStats, apmSearch, apmMemoryGrowth, releaseHealth];
