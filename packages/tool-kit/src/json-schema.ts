import { z } from 'zod';

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 and MCP use) of a tool's input or output.
 * `io: 'input'` describes what a caller may send (defaults make fields optional);
 * `io: 'output'` describes what comes back.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}
