import { defineTool, identifier, isoTimestamp, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';

export const traceSearchInput = z.strictObject({
  user_id: identifier('end-user id: traces with any span of this user').optional(),
  session_id: identifier('session id: traces with any span of this session').optional(),
  status: z.enum(['error', 'ok']).describe('error: any span errored; ok: none did.').optional(),
  operation: z.string().trim().min(1).max(500).describe("The root span's operation, exactly.").optional(),
  min_duration_ms: z.number().min(0).describe('At least this long.').optional(),
  max_duration_ms: z.number().min(0).describe('At most this long.').optional(),
  from: isoTimestamp.describe('Started at or after.').optional(),
  to: isoTimestamp.describe('Started before.').optional(),
  limit: limit(50),
});

export const traceSummary = z.strictObject({
  trace_id: z.string(),
  started_at: z.iso.datetime().describe("The trace's first span start."),
  duration_ms: z.number().describe('Last span end - first span start.'),
  span_count: z.number().int(),
  error: z.boolean().describe('True when any span has status error.'),
  root_operation: z
    .string()
    .describe('Operation of the root: the span without a parent in the trace (the earliest if several).'),
  root_service: z.string().nullable(),
  root_orphan: z.boolean().describe('True when the root names a parent the trace does not contain.'),
  services: z.array(z.string()).describe('Services with spans in the trace, by name.'),
});
export type TraceSummary = z.infer<typeof traceSummary>;

export const traceSearchOutput = listOf(traceSummary);

export const traceSearch = defineTool({
  name: 'trace.search',
  title: 'Search traces',
  description:
    'Recent traces, newest first, one row per trace, filtered as given. Returns items {trace_id, ' +
    'started_at, duration_ms, span_count, error, root_operation, services, ...}. ' +
    'Then trace.get for the span tree of one trace.',
  input: traceSearchInput,
  output: traceSearchOutput,
  capability: 'vis_trace',
  backend: 'core',
  example: { status: 'error', min_duration_ms: 1000 },
});
