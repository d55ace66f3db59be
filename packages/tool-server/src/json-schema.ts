import { z } from 'zod';

// JSON Schema (2020-12, as OpenAPI 3.1 and MCP use) of a tool's input or output, in two cuts:
// - `toolJsonSchema`: the whole schema with every field's description (/openapi.json, docs/tools.md);
// - `mcpOutputSchema`: the output as an envelope for tools/list, which every MCP client loads into
//   its context on every connection (docs/decisions.md, "tools/list size").
// Both come from the same zod definition, so they cannot disagree.

type Json = Record<string, unknown>;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * What zod emits that says nothing a client can use, or that clients handle badly:
 * - `pattern` beside `format`: zod's own regex for a date or date-time (400 characters each) that
 *   repeats what `format` names;
 * - integer bounds of +-(2^53 - 1): zod's "safe integer", not a limit of the tool;
 * - `propertyNames: {type: string}`: every JSON key is a string;
 * - `id` (a named schema's meta id): the name is already the key under `$defs`;
 * - `{}` as a record's value schema ("any JSON value"): written `true`, which says the same and
 *   passes schema-portability checks (an empty object schema is flagged as "constrains nothing");
 * - `properties: {}` beside an `additionalProperties` schema: a map of client-chosen keys
 *   (keyedRecord, an object with no fixed fields), written as z.record was.
 */
function tidy(node: unknown, keyword?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n));
  if (node === null || typeof node !== 'object') return node;
  const source = node as Json;
  if (keyword === 'additionalProperties' && Object.keys(source).length === 0) return true;
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'pattern' && typeof source.format === 'string') continue;
    if (key === 'minimum' && value === -MAX_SAFE) continue;
    if (key === 'maximum' && value === MAX_SAFE) continue;
    if (key === 'propertyNames' && isStringTypeOnly(value)) continue;
    if (key === 'properties' && isMapOfAnyKeys(source)) continue;
    // zod writes a named schema's meta id as `id`, a keyword JSON Schema 2020-12 does not have.
    if (key === 'id' && typeof value === 'string') continue;
    out[key] = key === 'properties' || key === '$defs' ? mapValues(value, (v) => tidy(v)) : tidy(value, key);
  }
  return out;
}

/** An object schema with no fixed fields whose other keys all take one schema: a map. */
function isMapOfAnyKeys(source: Json): boolean {
  const { properties, additionalProperties } = source;
  return (
    typeof properties === 'object' &&
    properties !== null &&
    Object.keys(properties).length === 0 &&
    typeof additionalProperties === 'object' &&
    additionalProperties !== null
  );
}

function isStringTypeOnly(value: unknown): boolean {
  return JSON.stringify(value) === '{"type":"string"}';
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, fn(v)]));
}

/**
 * A tool's input or output schema. `io: 'input'` describes what a caller may send (defaults make
 * fields optional); `io: 'output'` describes what comes back.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
  delete json.$schema;
  return tidy(json) as Json;
}

/**
 * The output schema as tools/list carries it: the result's top-level fields with their types,
 * enums and nullability; the fields of the objects directly in it (a window, a crash) with their
 * types; lists and deeper objects typed as `array` / `object`. No field prose, no `required` and
 * no `format`: clients check `structuredContent` with it and seldom show it to a model, the tool's
 * description says what comes back, and /openapi.json has every field described and required.
 * Still a true schema of the result (every result validates), so clients that check
 * `structuredContent` keep working; no `additionalProperties: false`, so an added field is not a
 * breaking change for a client holding an older list.
 */
export function mcpOutputSchema(schema: z.ZodType): Json {
  const out = envelope(toolJsonSchema(schema, 'output'), 1) as Json;
  withoutBudgetFields(out);
  // A named (recursive) schema is only ever reached below the kept levels, where lists are `array`.
  if (out.$defs !== undefined && !JSON.stringify({ ...out, $defs: undefined }).includes('"#/$defs/')) {
    delete out.$defs;
  }
  return out;
}

/**
 * The fields a cut answer adds (tool-kit's answerBudgetFields: `truncated`, `omitted`, and on an
 * answer that is not a list page `next_cursor` and `continued`) are left out: every tool has them,
 * the reference documents them once, and an envelope without them still holds every answer. A
 * tool's own required `truncated` and a page's own `next_cursor` stay.
 */
function withoutBudgetFields(out: Json): void {
  const properties = out.properties as Json | undefined;
  if (!properties) return;
  const required = new Set((out.required as string[] | undefined) ?? []);
  delete properties.omitted;
  delete properties.continued;
  if (!required.has('truncated')) delete properties.truncated;
  if (!('has_more' in properties)) delete properties.next_cursor;
}

/** Object levels kept with their fields: the result (1) and the objects directly in it (2). */
const LEVELS_WITH_FIELDS = 2;

function envelope(node: unknown, level: number): unknown {
  if (Array.isArray(node)) return node.map((n) => envelope(n, level));
  if (node === null || typeof node !== 'object') return node;
  const source = node as Json;
  if (source.type === 'object' && level > LEVELS_WITH_FIELDS) return { type: 'object' };
  if (source.type === 'array' && level >= LEVELS_WITH_FIELDS && isObjectSchema(source.items)) {
    return { type: 'array' };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'description' || key === 'title') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'required' || key === 'format') continue;
    out[key] =
      key === 'properties' ? mapValues(value, (v) => envelope(v, level + 1)) : envelope(value, level);
  }
  return out;
}

function isObjectSchema(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Json;
  return (
    v.type === 'object' ||
    typeof v.$ref === 'string' ||
    (Array.isArray(v.anyOf) && v.anyOf.some(isObjectSchema))
  );
}
