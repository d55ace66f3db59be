import { ERROR_CODES } from '@svc/errors';
import { type AnyTool, MAX_RESULT_CHARS_RANGE } from '@svc/tool-kit';
import { usageAdvice } from './guidance';
import { toolJsonSchema } from './json-schema';

/** The service as clients see it: MCP serverInfo and the OpenAPI document's info. */
export const SERVICE_INFO = {
  name: 'svc-observability',
  title: 'Observability query tools',
  version: '0.1.0',
} as const;

export interface OpenApiOptions {
  /** Written as `servers` when set (SVC_PUBLIC_URL). */
  serverUrl?: string;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

type Json = Record<string, unknown>;

const DEFS_REF = '#/$defs/';

/**
 * Named schemas (zod `.meta({id})`, e.g. the recursive TraceSpan) move from the tool schema's
 * `$defs` to components.schemas, once for every tool that uses them, and their refs follow:
 * a `#/$defs/X` ref inside components would point nowhere.
 */
function hoistDefinitions(schema: Json, components: Json): Json {
  const { $defs, ...rest } = schema;
  for (const [name, definition] of Object.entries(($defs ?? {}) as Json)) {
    const hoisted = rewriteRefs(definition);
    const existing = components[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(hoisted)) {
      throw new Error(`two different schemas are named ${name}`);
    }
    components[name] = hoisted;
  }
  return rewriteRefs(rest) as Json;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_REF)
        ? `#/components/schemas/${value.slice(DEFS_REF.length)}`
        : rewriteRefs(value);
  }
  return out;
}

// Once for every path: the result budget a REST client may set (result-budget.ts).
const RESULT_BUDGET_PARAMETER = {
  name: 'X-Max-Result-Chars',
  in: 'header',
  required: false,
  description:
    'Characters of JSON the answer may take (without it the answer is whole; MCP calls default to ' +
    "the tool's x-max-result-chars). An answer " +
    'over it is cut to fit: list items are left out, `truncated: true`, `omitted` counts them, and ' +
    "`next_cursor` goes on from the first left out (a list page's next page; any other answer again, " +
    'each cut list from where it stopped, `continued` saying where).',
  schema: { type: 'integer', minimum: MAX_RESULT_CHARS_RANGE[0], maximum: MAX_RESULT_CHARS_RANGE[1] },
};

/** OpenAPI 3.1 of the REST binding, generated from the same definitions as the MCP tool list. */
export function buildOpenApiDocument(
  tools: readonly AnyTool[],
  options: OpenApiOptions = {},
): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Error: {
      type: 'object',
      required: ['error', 'message'],
      properties: {
        error: {
          type: 'string',
          enum: ERROR_CODES,
        },
        message: { type: 'string' },
        details: {},
      },
    },
  };
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    const key = tool.name.replace(/\./g, '_');
    schemas[`${key}_input`] = hoistDefinitions(toolJsonSchema(tool.input, 'input'), schemas);
    schemas[`${key}_output`] = hoistDefinitions(toolJsonSchema(tool.output, 'output'), schemas);
    paths[`/v1/tools/${tool.name}`] = {
      post: {
        operationId: key,
        summary: tool.title,
        description: tool.description,
        tags: [tool.name.split('.')[0]],
        security: [{ bearerAuth: [] }],
        'x-capability': tool.capability,
        'x-max-result-chars': tool.maxResultChars,
        parameters: [{ $ref: '#/components/parameters/max_result_chars' }],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${key}_input` } } },
        },
        responses: {
          '200': {
            description: 'The tool result. An empty result means no such data in the window.',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${key}_output` } } },
          },
          '400': errorResponse('Input does not match the tool schema (invalid_input).'),
          '401': errorResponse(
            'Missing, invalid, expired or revoked token, or no mcp:read scope (unauthorized).',
          ),
          '404': errorResponse('Unknown tool (not_found).'),
          '405': errorResponse('Any method but POST (method_not_allowed); see Allow.'),
          '429': errorResponse('Too many requests for this token (rate_limited); see Retry-After.'),
          '503': errorResponse('A backend is unavailable (backend_unavailable); see Retry-After.'),
          '504': errorResponse('A backend did not answer in time (backend_timeout).'),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_INFO.title,
      version: SERVICE_INFO.version,
      description:
        'Every tool is POST /v1/tools/{name} with the tool parameters as a JSON object; the project ' +
        `comes from the bearer token. ${usageAdvice(tools)}`,
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      parameters: { max_result_chars: RESULT_BUDGET_PARAMETER },
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Personal access token svc_pat_... with scope mcp:read',
        },
      },
    },
  };
}
