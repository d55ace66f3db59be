import type { AnyTool } from '@svc/tool-kit';
import { analyticsCohorts } from './analytics-cohorts';
import { analyticsDimensions } from './analytics-dimensions';
import { analyticsFunnel } from './analytics-funnel';
import { analyticsRetention } from './analytics-retention';
import { experimentResults } from './experiment-results';
import { feedbackSearch } from './feedback-search';
import { trackRecent } from './track-recent';
import { trackStats } from './track-stats';

/** Tools of this group, in catalog order. Each lives in its own file. */
export const analyticsTools: readonly AnyTool[] = [
  trackRecent,
  trackStats,
  feedbackSearch,
  analyticsFunnel,
  analyticsRetention,
  analyticsCohorts,
  analyticsDimensions,
  experimentResults,
];
