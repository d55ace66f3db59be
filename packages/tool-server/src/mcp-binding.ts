import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type AnyTool, asServiceError, NotFoundError, type Principal, type Transport } from '@svc/tool-kit';
import { z } from 'zod';
import type { ToolExecutor } from './executor';

/** tools/call as sent: `arguments` is left to the tool's own input schema. */
const callToolRequest = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});
type CallExtra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

import { usageAdvice } from './guidance';
import { mcpOutputSchema, toolJsonSchema } from './json-schema';

export interface McpServerOptions {
  executor: ToolExecutor;
  /** Resolved per request: over HTTP the principal is re-authenticated on every request. */
  principal: () => Principal;
  transport: Extract<Transport, 'mcp' | 'stdio'>;
  serverInfo: { name: string; version: string };
  newRequestId: () => string;
}

/** A tool as tools/list carries it (the output schema as an envelope: see json-schema.ts). */
export function toMcpTool(tool: AnyTool): Tool {
  // The title is the tool's own `title`; repeating it inside the annotations would only cost bytes.
  const { title: _title, ...annotations } = tool.annotations;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input, 'input') as Tool['inputSchema'],
    outputSchema: mcpOutputSchema(tool.output) as Tool['outputSchema'],
    annotations,
  };
}

/**
 * The single mapping from the error hierarchy to MCP: an unknown (or hidden) tool is a JSON-RPC
 * -32602 error, like the SDK's own; everything else is a tool result with isError, so the model
 * can read what went wrong (MCP 2025-11-25).
 */
export function toMcpToolError(err: unknown, toolName: string): CallToolResult {
  const e = asServiceError(err);
  if (e instanceof NotFoundError) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${toolName}`);
  const body: Record<string, unknown> = { error: e.code, message: e.message };
  if (e.details !== undefined) body.details = e.details;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * A low-level MCP server over the executor; one per MCP session (or per request when stateless).
 * Its instructions are written from the tools this caller can see when the server is made.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { executor } = options;
  const server = new Server(options.serverInfo, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions: usageAdvice(executor.visibleTools(options.principal())),
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: executor.visibleTools(options.principal()).map(toMcpTool),
  }));

  const callTool = async (
    request: z.output<typeof callToolRequest>,
    extra: CallExtra,
  ): Promise<CallToolResult> => {
    const name = request.params.name;
    const traceparent = extra.requestInfo?.headers?.traceparent;
    try {
      const answer = await executor.execute({
        principal: options.principal(),
        tool: name,
        args: request.params.arguments,
        transport: options.transport,
        requestId: options.newRequestId(),
        ...(typeof traceparent === 'string' ? { traceparent } : {}),
        signal: extra.signal,
      });
      // From an answer worker, the text is the JSON it made and only the object is parsed here.
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.value };
    } catch (err) {
      return toMcpToolError(err, name);
    }
  };
  // Registered on the protocol itself, past the SDK's own tools/call wrapper: that wrapper answers
  // `arguments` of the wrong kind (null, an array, a string) with an InvalidParams error whose
  // message is a dump of its zod issues, and rebuilds `arguments` through zod, which silently drops
  // a `__proto__` key REST refuses. Here `arguments` reaches the executor exactly as sent, so MCP and
  // REST validate it with the same rules and the same messages; results are built (and checked
  // against the tool's output schema) by the executor.
  Protocol.prototype.setRequestHandler.call(server, callToolRequest, callTool as never);

  return server;
}
