import { defineTool, keyedRecord, traceId } from '@svc/tool-kit';
import { z } from 'zod';

/** Most spans one answer carries; a larger trace comes back cut, earliest spans first. */
export const TRACE_GET_MAX_SPANS = 2000;
/** Deepest nesting of one answer: clients' JSON parsers recurse, and some stop at a few hundred. */
export const TRACE_GET_MAX_DEPTH = 64;

const spanFields = {
  span_id: z.string(),
  parent_span_id: z.string().nullable().describe('Null for a span that names no parent.'),
  operation: z.string(),
  service: z.string().nullable(),
  kind: z.string(),
  status: z.string().describe('ok, error or unset.'),
  start_time: z.iso.datetime(),
  offset_ms: z.number().describe("Start relative to the trace's first span."),
  duration_ms: z.number(),
  self_ms: z.number().describe('Time in this span not covered by any of its children (where the time went).'),
  orphan: z
    .boolean()
    .describe(
      'True for a top-level span that names a parent: the parent is not in the trace, the span is ' +
        `its own ancestor (a cycle), or it lies deeper than ${TRACE_GET_MAX_DEPTH} levels.`,
    ),
  sample_rate: z.number().describe('Head-sampling rate in force when the span was kept.'),
  user_id: z.string().nullable(),
  session_id: z.string().nullable(),
  attributes: keyedRecord(z.string(), z.string()),
};

export interface TraceSpanNode {
  span_id: string;
  parent_span_id: string | null;
  operation: string;
  service: string | null;
  kind: string;
  status: string;
  start_time: string;
  offset_ms: number;
  duration_ms: number;
  self_ms: number;
  orphan: boolean;
  sample_rate: number;
  user_id: string | null;
  session_id: string | null;
  attributes: Record<string, string>;
  children: TraceSpanNode[];
}

// A named recursive schema: OpenAPI gets it once under components.schemas.TraceSpan.
export const traceSpanNode: z.ZodType<TraceSpanNode> = z
  .strictObject({
    ...spanFields,
    get children(): z.ZodArray<z.ZodType<TraceSpanNode>> {
      return z.array(traceSpanNode).describe('Child spans, by start time.');
    },
  })
  .meta({ id: 'TraceSpan' });

export const traceGetInput = z.strictObject({
  trace_id: traceId,
});

export const traceGetOutput = z.strictObject({
  trace_id: z.string(),
  found: z.boolean().describe('False when the project has no span of this trace; the rest is then empty.'),
  started_at: z.iso.datetime().nullable().describe("The first span's start."),
  duration_ms: z.number().describe('Last span end - first span start.'),
  span_count: z.number().int().describe('Spans of the trace in storage.'),
  error: z.boolean().describe('True when any span has status error.'),
  services: z.array(z.string()),
  truncated: z
    .boolean()
    .describe(
      `True when the trace has more than ${TRACE_GET_MAX_SPANS} spans: the earliest are in the tree.`,
    ),
  spans: z
    .array(traceSpanNode)
    .describe('Top-level spans by start time: the root, and the orphans (flagged) whose parent is missing.'),
});

export const traceGet = defineTool({
  name: 'trace.get',
  title: 'One trace as a span tree',
  description:
    "One trace's span tree: spans nested under their parents by start time, each with service, " +
    'operation, status, offset, duration and self time; orphans (parent missing) at the top, flagged.' +
    ' Returns {trace_id, found, duration_ms, span_count, error, services, truncated, spans: ' +
    '[{span_id, ..., children}], ...}; found is false for an unknown id. Find trace ids with ' +
    "trace.search (or a log line's trace_id).",
  input: traceGetInput,
  output: traceGetOutput,
  capability: 'vis_trace',
  backend: 'core',
  example: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
});
