export {
  analyticsCohorts,
  analyticsCohortsInput,
  analyticsCohortsOutput,
  COHORT_GRANULARITIES,
} from './analytics-cohorts';
export {
  analyticsDimensions,
  analyticsDimensionsInput,
  analyticsDimensionsOutput,
  DIMENSION_VALUES_MAX,
  DIMENSIONS,
  type Dimension,
} from './analytics-dimensions';
export {
  analyticsFunnel,
  analyticsFunnelInput,
  analyticsFunnelOutput,
  FUNNEL_STEPS_MAX,
  FUNNEL_STEPS_MIN,
  funnelStep,
  WINDOW_HOURS_MAX,
} from './analytics-funnel';
export { analyticsRetention, analyticsRetentionInput, analyticsRetentionOutput } from './analytics-retention';
export {
  experimentResults,
  experimentResultsInput,
  experimentResultsOutput,
  experimentVariant,
  KNOWN_KEYS,
} from './experiment-results';
export { feedbackSearch, feedbackSearchInput, feedbackSearchOutput } from './feedback-search';
export {
  type DayOffsetColumn,
  dayOffsetColumn,
  eventFilters,
  MAX_DAY_MAX,
  maxDay,
} from './retention-schemas';
export { type FeedbackItem, feedbackItem, type TrackEvent, trackEvent } from './schemas';
export { analyticsTools } from './toolset';
export { trackRecent, trackRecentInput, trackRecentOutput } from './track-recent';
export { TOP_EVENTS_MAX, trackStats, trackStatsInput, trackStatsOutput } from './track-stats';
