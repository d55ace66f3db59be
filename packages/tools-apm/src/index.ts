export {
  apmMemoryGrowth,
  apmMemoryGrowthInput,
  apmMemoryGrowthOutput,
  MEMORY_METRIC,
  MIN_MEMORY_SAMPLES,
} from './apm-memory-growth';
export { type ApmSample, apmSample, apmSearch, apmSearchInput, apmSearchOutput } from './apm-search';
export { apmStats, apmStatsInput, apmStatsOutput } from './apm-stats';
export { apmTools } from './toolset';
