import type { AnyCoreTool } from '../core-tool';
import { analyticsCohortsQuery } from './analytics-cohorts';
import { analyticsDimensionsQuery } from './analytics-dimensions';
import { analyticsFunnelQuery } from './analytics-funnel';
import { analyticsRetentionQuery } from './analytics-retention';
import { experimentResultsQuery } from './experiment-results';
import { feedbackSearchQuery } from './feedback-search';
import { trackRecentQuery } from './track-recent';
import { trackStatsQuery } from './track-stats';

/** Tracking, analytics, experiments and feedback as the core serves them (@svc/tools-analytics). */
export const analyticsQueries: readonly AnyCoreTool[] = [
  trackRecentQuery,
  trackStatsQuery,
  analyticsFunnelQuery,
  analyticsRetentionQuery,
  analyticsCohortsQuery,
  analyticsDimensionsQuery,
  feedbackSearchQuery,
  experimentResultsQuery,
];
