import { z } from 'zod';
import { keyedRecord } from './keyed-record';

// Shared schema pieces, so every tool states limits, windows and lists the same way
// (docs/semantics.md: limit 1..1000, aggregates up to 10000, days 1..365). Bounds and defaults are
// JSON Schema keywords (minimum, maximum, default) that clients show; descriptions do not repeat
// them, since every client pays for tools/list in its context.

export const LIST_LIMIT_MAX = 1000;
export const AGGREGATE_LIMIT_MAX = 10000;
export const DAYS_MAX = 365;

// `limit` goes undescribed: its name, bounds and default say it all, and tools/list carries it 17 times.
export function limit(defaultValue: number, max = LIST_LIMIT_MAX) {
  return z.number().int().min(1).max(max).default(defaultValue);
}

export function days(defaultValue: number) {
  return z.number().int().min(1).max(DAYS_MAX).default(defaultValue).describe('Days back from now.');
}

/** Free-text needles: matched as a literal, case-insensitive substring. */
export function searchText(description: string) {
  return z.string().trim().min(1).max(200).describe(description);
}

export const identifier = (what: string) => z.string().trim().min(1).max(200).describe(`The ${what}.`);

export const traceId = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, 'must be 32 hex characters')
  .transform((v) => v.toLowerCase())
  .describe('W3C trace id: 32 hex characters.');

export const isoTimestamp = z.iso.datetime({ offset: true });

/** A point in time as a caller may write it: a date-time with a zone, or a date alone (00:00 UTC). */
export const isoDateOrTime = z.union([isoTimestamp, z.iso.date()], {
  error: 'must be an ISO 8601 date or date-time, e.g. 2026-11-20 or 2026-11-20T10:00:00Z',
});

export const window = z
  .strictObject({ from: isoTimestamp, to: isoTimestamp })
  .describe('The time window the result covers (ISO 8601, UTC).');

export function listOf<T extends z.ZodType>(item: T) {
  return z.strictObject({
    items: z.array(item),
    limit: z.number().int(),
    has_more: z.boolean().describe('True when more items matched than `limit`.'),
    next_cursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last.'),
  });
}

/**
 * The `cursor` input of every list tool (added by defineTool to a tool whose output is `listOf`):
 * the `next_cursor` of the previous page, opaque to the caller. Undescribed and unbounded here (the
 * name says it, as MCP's own paging does, and tools/list pays for every keyword on 13 tools): whatever is not a cursor this service sealed is refused with a 400
 * naming `cursor` when it is opened (tool-server's cursor.ts), the body limit bounding its length.
 */
export const cursor = z.string().optional();

/**
 * A result's budget in characters of JSON: what a tool answers at most unless the client asks for
 * another per call (about 25,000 tokens, the cap MCP clients commonly apply to one result).
 */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;
/** The budgets a tool may declare and a client may ask for. */
export const MAX_RESULT_CHARS_RANGE: readonly [min: number, max: number] = [1_000, 1_000_000];

/**
 * What every output may carry when its answer was cut to the call's result budget (added by
 * defineTool; a tool that has its own `truncated` or `next_cursor` keeps it). An answer that is not
 * a list page continues by `next_cursor` too: the same call with `cursor` answers the cut lists from
 * where they stopped, `continued` saying where. Left out of tools/list's envelopes: the tool
 * reference documents them once.
 */
export const answerBudgetFields = {
  truncated: z.literal(true).optional().describe('Present when the answer was cut to the result budget.'),
  omitted: keyedRecord(z.string(), z.number().int())
    .optional()
    .describe('What the cut left out: items per list, by its path.'),
  next_cursor: z
    .string()
    .optional()
    .describe('Pass as `cursor` with the same arguments for the rest of the cut lists.'),
  continued: keyedRecord(z.string(), z.number().int())
    .optional()
    .describe(
      'On an answer asked for with a continuation cursor: each list that goes on, by path, with the ' +
        'index its first item had in the whole list. Every other list was whole in an earlier part ' +
        'and is empty here.',
    ),
};

/** A schema without its optional/nullable/default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  ) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/**
 * The paths of the lists an answer of this output carries at its top level and one level down
 * (a detail's `channels`, a summary's `by_version`): what a result budget cuts in an answer that
 * is not a list page, and what its continuation goes on with.
 */
export function listPathsOf(output: z.ZodObject): string[][] {
  const paths: string[][] = [];
  for (const [key, field] of Object.entries(output.shape)) {
    const schema = unwrapped(field as z.ZodType);
    if (schema instanceof z.ZodArray) paths.push([key]);
    else if (schema instanceof z.ZodObject) {
      for (const [inner, innerField] of Object.entries(schema.shape)) {
        if (unwrapped(innerField as z.ZodType) instanceof z.ZodArray) paths.push([key, inner]);
      }
    }
  }
  return paths;
}

/**
 * Whether an output schema is a list page made by `listOf` (its tool takes a `cursor`). Other
 * answers with items and has_more page their own way (log.file_entries continues after a line).
 */
export function isListOutput(output: z.ZodObject): boolean {
  return 'next_cursor' in output.shape && 'has_more' in output.shape;
}
