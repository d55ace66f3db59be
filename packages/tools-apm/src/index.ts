export { apmStats, apmStatsInput, apmStatsOutput } from './apm-stats';
export { apmTools } from './toolset';
