export {
  apmMemoryGrowth,
  apmMemoryGrowthInput,
  apmMemoryGrowthOutput,
  MEMORY_METRIC,
  MIN_MEMORY_SAMPLES,
} from './apm-memory-growth';
export { type ApmSample, apmSample, apmSearch, apmSearchInput, apmSearchOutput } from './apm-search';
export { apmStats, apmStatsInput, apmStatsOutput } from './apm-stats';
export {
  RELEASE_VERSIONS_MAX,
  RELEASE_WEIGHTS,
  releaseHealth,
  releaseHealthInput,
  releaseHealthOutput,
} from './release-health';
export { apmTools } from './toolset';
