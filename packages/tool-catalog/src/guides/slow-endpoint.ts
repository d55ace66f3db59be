import { defineGuide } from '@svc/tool-kit';

export const slowEndpointGuide = defineGuide({
  name: 'find-slow-endpoint',
  title: 'Find a slow endpoint and where its time goes',
  description:
    'Which operation is slow, which of its traces are the slow ones, and which span of them holds the time.',
  arguments: [{ name: 'days', description: 'How many days back to look (default 7).', required: false }],
  steps: [
    {
      tool: 'trace.aggregate',
      args: { days: '{days}' },
      lookFor:
        'Operations with the highest p99_ms (and their error_rate): the slow endpoint is usually a root operation with a p99 far above its p50.',
    },
    {
      tool: 'trace.search',
      args: { operation: '<the operation from step 1>', min_duration_ms: '<about its p99_ms>', limit: 5 },
      lookFor: 'Traces of that operation at least as slow as its p99: pick one trace_id.',
    },
    {
      tool: 'trace.get',
      args: { trace_id: '<a trace_id from step 2>' },
      lookFor:
        'The span tree: the spans with the largest self time on the path from the root are where the time goes; error spans explain retries.',
    },
    {
      tool: 'log.recent',
      args: { trace_id: '<the same trace_id>' },
      lookFor: 'The log lines of that trace, e.g. a timeout or a slow query logged by the slow span.',
    },
    {
      tool: 'apm.stats',
      args: { days: '{days}' },
      lookFor:
        'Client-side metrics of the same days (screen loads, request timings) to see whether users feel it.',
    },
  ],
});
