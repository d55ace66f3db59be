export { traceTools } from './toolset';
export {
  type TraceSummary,
  traceSearch,
  traceSearchInput,
  traceSearchOutput,
  traceSummary,
} from './trace-search';
