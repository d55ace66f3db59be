export { type ApmSample, apmSample, apmSearch, apmSearchInput, apmSearchOutput } from './apm-search';
export { apmStats, apmStatsInput, apmStatsOutput } from './apm-stats';
export { apmTools } from './toolset';
