export { feedbackSearch, feedbackSearchInput, feedbackSearchOutput } from './feedback-search';
export { type FeedbackItem, feedbackItem, type TrackEvent, trackEvent } from './schemas';
export { analyticsTools } from './toolset';
export { trackRecent, trackRecentInput, trackRecentOutput } from './track-recent';
export { TOP_EVENTS_MAX, trackStats, trackStatsInput, trackStatsOutput } from './track-stats';
