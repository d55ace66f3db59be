import { defineTool, keyedRecord, limit, traceId } from '@svc/tool-kit';
import { z } from 'zod';
import { cutTracePage, tracePageLength } from './trace-page-cut';

/** Most spans one page carries (the `limit` a caller may ask for); the next page by `cursor`. */
export const TRACE_GET_MAX_SPANS = 2000;
/**
 * Spans of a page unless the caller sets `limit`: a span with a few attributes is 400 to 900
 * characters of JSON, so a page and the trace's summary stay well within the default result budget.
 */
export const TRACE_GET_DEFAULT_SPANS = 100;
/** Steps of the critical path an answer carries at most (from the root). */
export const CRITICAL_PATH_MAX_STEPS = 50;
/** Error spans an answer lists at most (the earliest); `error_span_count` counts them all. */
export const ERROR_SPANS_MAX = 20;
/** Rows of the summary at most (by service and kind, the most self time first). */
export const SUMMARY_MAX_ROWS = 50;
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
  parent_on_other_page: z
    .literal(true)
    .optional()
    .describe('At the top of this page: its parent is in the trace, on another page.'),
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
  parent_on_other_page?: true;
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
  limit: limit(TRACE_GET_DEFAULT_SPANS, TRACE_GET_MAX_SPANS),
});

const summaryRow = z.strictObject({
  service: z.string().nullable(),
  kind: z.string(),
  spans: z.number().int(),
  errors: z.number().int(),
  duration_ms: z.number(),
  self_ms: z.number(),
});

const pathStep = z.strictObject({
  span_id: z.string(),
  operation: z.string(),
  service: z.string().nullable(),
  duration_ms: z.number(),
  self_ms: z.number(),
});

const errorSpan = z.strictObject({
  span_id: z.string(),
  operation: z.string(),
  service: z.string().nullable(),
  kind: z.string(),
  offset_ms: z.number(),
  duration_ms: z.number(),
});

export const traceGetOutput = z.strictObject({
  trace_id: z.string(),
  found: z.boolean().describe('False when the project has no span of this trace; the rest is then empty.'),
  started_at: z.iso.datetime().nullable().describe("The first span's start."),
  duration_ms: z.number().describe('Last span end - first span start.'),
  span_count: z.number().int().describe('Spans of the trace in storage.'),
  error: z.boolean().describe('True when any span has status error.'),
  services: z.array(z.string()),
  truncated: z.boolean().describe('True when this page holds fewer than all spans of the trace.'),
  spans: z
    .array(traceSpanNode)
    .describe('Top-level spans by start time: the root, and the orphans (flagged) whose parent is missing.'),
  has_more: z.boolean().describe('More spans follow, by start time.'),
  next_cursor: z.string().optional(),
  summary: z
    .array(summaryRow)
    .describe(`All spans by service and kind, most self time first (${SUMMARY_MAX_ROWS} rows at most).`),
  critical_path: z
    .array(pathStep)
    .describe(
      `From the root, each step its child that ends last (${CRITICAL_PATH_MAX_STEPS} steps at most).`,
    ),
  error_spans: z.array(errorSpan).describe(`The earliest ${ERROR_SPANS_MAX} spans with status error.`),
  error_span_count: z.number().int(),
});

export const traceGet = defineTool({
  name: 'trace.get',
  title: 'One trace as a span tree',
  description:
    'Returns one trace: summary by service and kind, critical path and error spans over all its spans, and ' +
    'a page of its span tree by start time (next_cursor for more): spans under their parents, each ' +
    'with service, operation, status, offset, duration and self time; orphans (parent missing) at ' +
    "the top, flagged. found is false for an unknown id. Find trace ids with trace.search (or a log line's trace_id).",
  input: traceGetInput,
  output: traceGetOutput,
  pages: { length: tracePageLength, cut: cutTracePage },
  capability: 'vis_trace',
  backend: 'core',
  example: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
});
