export { AGGREGATE_HOURS, logAggregate, logAggregateInput, logAggregateOutput } from './log-aggregate';
export { logBySession, logBySessionInput, logBySessionOutput } from './log-by-session';
export { logByUser, logByUserInput, logByUserOutput } from './log-by-user';
export { logRecent, logRecentInput, logRecentOutput } from './log-recent';
export { logSearch, logSearchInput, logSearchOutput } from './log-search';
export { LOG_LEVELS, type LogEntry, logEntry, logLevel, logSource } from './schemas';
export { logsTools } from './toolset';
