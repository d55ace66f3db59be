import { type AnyTool, ERROR_CODES } from '@svc/tool-kit';
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
    schemas[`${key}_input`] = toolJsonSchema(tool.input, 'input');
    schemas[`${key}_output`] = toolJsonSchema(tool.output, 'output');
    paths[`/v1/tools/${tool.name}`] = {
      post: {
        operationId: key,
        summary: tool.title,
        description: tool.description,
        tags: [tool.name.split('.')[0]],
        security: [{ bearerAuth: [] }],
        'x-capability': tool.capability,
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
