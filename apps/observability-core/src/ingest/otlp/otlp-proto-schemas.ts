import type { Schema } from './protobuf-reader';

// The parts of opentelemetry-proto (v1: collector/{trace,logs,metrics}/v1 and their common,
// resource, trace, logs and metrics messages) that the OTLP mappings read, by field number, named
// as OTLP/HTTP JSON names them. Fields left out (events, links, exemplars, buckets, dropped
// counts, flags) are skipped by the decoder. `counted` fields are the ones that become records
// (spans, log records, data points): a body with more of them than a request may map to is
// refused while it is decoded.

const anyValue: Schema = {
  1: { name: 'stringValue', type: 'string' },
  2: { name: 'boolValue', type: 'bool' },
  3: { name: 'intValue', type: 'int64' },
  4: { name: 'doubleValue', type: 'double' },
  5: { name: 'arrayValue', type: 'message', schema: () => arrayValue },
  6: { name: 'kvlistValue', type: 'message', schema: () => keyValueList },
  7: { name: 'bytesValue', type: 'base64' },
};
const keyValue: Schema = {
  1: { name: 'key', type: 'string' },
  2: { name: 'value', type: 'message', schema: () => anyValue },
};
const arrayValue: Schema = { 1: { name: 'values', type: 'message', schema: () => anyValue, repeated: true } };
const keyValueList: Schema = {
  1: { name: 'values', type: 'message', schema: () => keyValue, repeated: true },
};
const attributes = { name: 'attributes', type: 'message', schema: () => keyValue, repeated: true } as const;
const resource: Schema = { 1: attributes };
const scope: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'version', type: 'string' },
  3: attributes,
};

const status: Schema = { 2: { name: 'message', type: 'string' }, 3: { name: 'code', type: 'varint' } };
const span: Schema = {
  1: { name: 'traceId', type: 'hex' },
  2: { name: 'spanId', type: 'hex' },
  3: { name: 'traceState', type: 'string' },
  4: { name: 'parentSpanId', type: 'hex' },
  5: { name: 'name', type: 'string' },
  6: { name: 'kind', type: 'varint' },
  7: { name: 'startTimeUnixNano', type: 'fixed64' },
  8: { name: 'endTimeUnixNano', type: 'fixed64' },
  9: attributes,
  15: { name: 'status', type: 'message', schema: () => status },
};
const scopeSpans: Schema = {
  1: { name: 'scope', type: 'message', schema: () => scope },
  2: { name: 'spans', type: 'message', schema: () => span, repeated: true, counted: true },
};
const resourceSpans: Schema = {
  1: { name: 'resource', type: 'message', schema: () => resource },
  2: { name: 'scopeSpans', type: 'message', schema: () => scopeSpans, repeated: true },
};
/** ExportTraceServiceRequest. */
export const traceRequest: Schema = {
  1: { name: 'resourceSpans', type: 'message', schema: () => resourceSpans, repeated: true },
};

const logRecord: Schema = {
  1: { name: 'timeUnixNano', type: 'fixed64' },
  11: { name: 'observedTimeUnixNano', type: 'fixed64' },
  2: { name: 'severityNumber', type: 'varint' },
  3: { name: 'severityText', type: 'string' },
  5: { name: 'body', type: 'message', schema: () => anyValue },
  6: attributes,
  9: { name: 'traceId', type: 'hex' },
  10: { name: 'spanId', type: 'hex' },
  12: { name: 'eventName', type: 'string' },
};
const scopeLogs: Schema = {
  1: { name: 'scope', type: 'message', schema: () => scope },
  2: { name: 'logRecords', type: 'message', schema: () => logRecord, repeated: true, counted: true },
};
const resourceLogs: Schema = {
  1: { name: 'resource', type: 'message', schema: () => resource },
  2: { name: 'scopeLogs', type: 'message', schema: () => scopeLogs, repeated: true },
};
/** ExportLogsServiceRequest. */
export const logsRequest: Schema = {
  1: { name: 'resourceLogs', type: 'message', schema: () => resourceLogs, repeated: true },
};

const numberPoint: Schema = {
  7: attributes,
  2: { name: 'startTimeUnixNano', type: 'fixed64' },
  3: { name: 'timeUnixNano', type: 'fixed64' },
  4: { name: 'asDouble', type: 'double' },
  6: { name: 'asInt', type: 'sfixed64' },
};
const histogramPoint: Schema = {
  9: attributes,
  2: { name: 'startTimeUnixNano', type: 'fixed64' },
  3: { name: 'timeUnixNano', type: 'fixed64' },
  4: { name: 'count', type: 'fixed64' },
  5: { name: 'sum', type: 'double' },
  11: { name: 'min', type: 'double' },
  12: { name: 'max', type: 'double' },
};
const exponentialHistogramPoint: Schema = {
  1: attributes,
  2: { name: 'startTimeUnixNano', type: 'fixed64' },
  3: { name: 'timeUnixNano', type: 'fixed64' },
  4: { name: 'count', type: 'fixed64' },
  5: { name: 'sum', type: 'double' },
  12: { name: 'min', type: 'double' },
  13: { name: 'max', type: 'double' },
};
const quantile: Schema = { 1: { name: 'quantile', type: 'double' }, 2: { name: 'value', type: 'double' } };
const summaryPoint: Schema = {
  7: attributes,
  2: { name: 'startTimeUnixNano', type: 'fixed64' },
  3: { name: 'timeUnixNano', type: 'fixed64' },
  4: { name: 'count', type: 'fixed64' },
  5: { name: 'sum', type: 'double' },
  6: { name: 'quantileValues', type: 'message', schema: () => quantile, repeated: true },
};
const pointsOf = (point: Schema): Schema => ({
  1: { name: 'dataPoints', type: 'message', schema: () => point, repeated: true, counted: true },
  2: { name: 'aggregationTemporality', type: 'varint' },
  3: { name: 'isMonotonic', type: 'bool' },
});
const numberPoints = pointsOf(numberPoint);
const histogramPoints = pointsOf(histogramPoint);
const exponentialHistogramPoints = pointsOf(exponentialHistogramPoint);
const summaryPoints = pointsOf(summaryPoint);
const metric: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'description', type: 'string' },
  3: { name: 'unit', type: 'string' },
  5: { name: 'gauge', type: 'message', schema: () => numberPoints },
  7: { name: 'sum', type: 'message', schema: () => numberPoints },
  9: { name: 'histogram', type: 'message', schema: () => histogramPoints },
  10: { name: 'exponentialHistogram', type: 'message', schema: () => exponentialHistogramPoints },
  11: { name: 'summary', type: 'message', schema: () => summaryPoints },
};
const scopeMetrics: Schema = {
  1: { name: 'scope', type: 'message', schema: () => scope },
  2: { name: 'metrics', type: 'message', schema: () => metric, repeated: true },
};
const resourceMetrics: Schema = {
  1: { name: 'resource', type: 'message', schema: () => resource },
  2: { name: 'scopeMetrics', type: 'message', schema: () => scopeMetrics, repeated: true },
};
/** ExportMetricsServiceRequest. */
export const metricsRequest: Schema = {
  1: { name: 'resourceMetrics', type: 'message', schema: () => resourceMetrics, repeated: true },
};
