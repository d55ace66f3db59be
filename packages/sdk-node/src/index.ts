export { type ActiveSpan, activeSpan, runInSpan, traceFields } from './context';
export { newSpanId, newTraceId } from './ids';
export { checkSampleRate, fnv1a32, isSampled } from './sampling';
export { formatTraceparent, parseTraceparent, type SpanContext } from './traceparent';
