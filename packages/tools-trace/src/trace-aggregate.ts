import { AGGREGATE_LIMIT_MAX, days, defineTool, limit, window } from '@svc/tool-kit';
import { z } from 'zod';

export const traceAggregateInput = z.strictObject({
  days: days(14),
  limit: limit(100, AGGREGATE_LIMIT_MAX).describe('Most operations to return.'),
});

const operationStats = z.strictObject({
  operation: z.string(),
  count: z
    .number()
    .describe('Spans restored for head sampling: each kept span counts 1/sample_rate, an error span 1.'),
  spans: z.number().int().describe('Spans stored.'),
  p50_ms: z.number().describe('Weighted median of the duration.'),
  p99_ms: z.number().describe('Weighted 99th percentile of the duration.'),
  error_rate: z.number().min(0).max(1).describe('Weight of error spans / weight of all spans.'),
});
export type OperationStats = z.infer<typeof operationStats>;

export const traceAggregateOutput = z.strictObject({
  window,
  total: z.number().describe('Restored span count of every operation in the window.'),
  operations: z
    .array(operationStats)
    .describe(
      'By restored count, highest first, then by name. A weighted percentile p is the smallest ' +
        'duration whose cumulative weight (spans by duration) reaches p of the total weight.',
    ),
  limit: z.number().int(),
  has_more: z.boolean().describe('True when more operations had spans than `limit`.'),
});

export const traceAggregate = defineTool({
  name: 'trace.aggregate',
  title: 'Latency and errors per operation',
  description:
    'Per span operation over the last N days (default 14): span count, p50 and p99 latency and error ' +
    'rate, restored for head sampling (a kept span weighs 1/sample_rate; error spans, always kept, ' +
    '1). Returns {window, total, operations: [{operation, count, spans, p50_ms, p99_ms, error_rate}],' +
    ' limit, has_more}, busiest first. Start here for latency; then trace.search with operation for ' +
    'example traces.',
  input: traceAggregateInput,
  output: traceAggregateOutput,
  capability: 'vis_trace',
  overview: true,
  backend: 'core',
  example: { days: 7, limit: 20 },
});
