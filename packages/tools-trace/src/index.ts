export { traceTools } from './toolset';
export {
  type OperationStats,
  traceAggregate,
  traceAggregateInput,
  traceAggregateOutput,
} from './trace-aggregate';
export {
  CRITICAL_PATH_MAX_STEPS,
  ERROR_SPANS_MAX,
  SUMMARY_MAX_ROWS,
  TRACE_GET_DEFAULT_SPANS,
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
