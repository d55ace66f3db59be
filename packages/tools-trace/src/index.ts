export { traceTools } from './toolset';
export {
  type OperationStats,
  traceAggregate,
  traceAggregateInput,
  traceAggregateOutput,
} from './trace-aggregate';
export {
  TRACE_GET_MAX_DEPTH,
  TRACE_GET_MAX_SPANS,
  type TraceSpanNode,
  traceGet,
  traceGetInput,
  traceGetOutput,
  traceSpanNode,
} from './trace-get';
export {
  type TraceSummary,
  traceSearch,
  traceSearchInput,
  traceSearchOutput,
  traceSummary,
} from './trace-search';
