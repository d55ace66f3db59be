import {
  type CacheHint,
  type CallToolResult,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  Server,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { asServiceError, NotFoundError } from '@svc/errors';
import type { AnyTool, InvestigationGuide, Principal, Transport } from '@svc/tool-kit';
import { compactText } from './compact-text';
import type { ToolExecutor } from './executor';
import { usageAdvice } from './guidance';
import { mcpOutputSchema, toolJsonSchema } from './json-schema';
import { servePrompts } from './mcp-prompts';
import { type ResourceShelf, serveResources } from './mcp-resources';
import { SKILLS_EXTENSION, serveSkills, skillShelf } from './mcp-skills';
import { type McpViews, viewShelf } from './mcp-views';
import { RESULT_BUDGET_META_KEY } from './result-budget';
import { chosenTools, type ToolsetChoice } from './toolsets';

/**
 * The two protocol eras one MCP endpoint serves. `modern`: revision 2026-07-28, no session, the
 * client's version, identity and capabilities in every request's `_meta`. `legacy`: the 2025
 * revisions, opened by `initialize`, with a session over HTTP.
 */
export type McpEra = 'modern' | 'legacy';

export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
/** Kept for the clients deployed before 2026-07-28 (how long: docs/decisions.md, "MCP revisions"). */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * How long a modern client may reuse a tools/list (and server/discover) answer. The list is the
 * caller's own (cacheScope private): it depends on the token's project and org, the org's
 * capability switches and the backends deployed and healthy right now. A minute bounds how stale
 * a cached list gets when nothing told the client (no listen stream): a capability switched on
 * shows its tools within a minute; a tool that went away meanwhile is refused when called, as
 * every call is checked against the caller's list again.
 */
export const TOOL_LIST_CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };

export interface McpServerOptions {
  executor: ToolExecutor;
  /** Resolved per request: over HTTP the principal is re-authenticated on every request. */
  principal: () => Principal;
  transport: Extract<Transport, 'mcp' | 'stdio'>;
  serverInfo: { name: string; version: string };
  newRequestId: () => string;
  /** The era this instance serves (a serving entry asks for one instance per era it meets). */
  era: McpEra;
  /**
   * MCP Apps views: served as resources (the `resources` capability), and the `_meta` naming its
   * view added to each such tool's definition in tools/list. Absent: no resources, no `_meta`.
   * Clients without Apps support ignore both; tools/call answers the same either way.
   */
  views?: McpViews;
  /**
   * The one request this instance answers, when that is known as it is made (a modern request's
   * server lives for that request alone): only its handler is registered, and the instructions
   * are written only for the requests that return them. Absent: everything (a legacy session,
   * stdio, a modern request of unknown method).
   */
  method?: string;
  /**
   * The toolsets the client chose (toolsets.ts): tools/list, the views, the prompts and the
   * instructions hold only their tools, and a call of another tool is refused naming its toolset.
   * Absent: the full catalog.
   */
  toolsets?: ToolsetChoice;
  /**
   * Investigation guides, served as prompts (mcp-prompts.ts) and as skills (mcp-skills.ts: the
   * Skills extension, its SKILL.md files read as resources). Absent: neither capability.
   */
  guides?: readonly InvestigationGuide[];
}

/** The requests whose answer carries the server's instructions. */
const ANSWERS_WITH_INSTRUCTIONS = ['initialize', 'server/discover'];

/** A tool as tools/list carries it (the output schema as an envelope: see json-schema.ts). */
export function toMcpTool(tool: AnyTool, meta?: Record<string, unknown>): Tool {
  // The title is the tool's own `title`; repeating it inside the annotations would only cost bytes.
  const { title: _title, ...annotations } = tool.annotations;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input, 'input') as Tool['inputSchema'],
    outputSchema: mcpOutputSchema(tool.output) as Tool['outputSchema'],
    annotations,
    // The size hint clients that cap results read (Claude Code): the answer's own budget.
    _meta: { ...meta, [RESULT_BUDGET_META_KEY]: tool.maxResultChars },
  };
}

/**
 * The single mapping from the error hierarchy to MCP: an unknown (or hidden) tool is a JSON-RPC
 * -32602 error, like the SDK's own; everything else is a tool result with isError, so the model
 * can read what went wrong (the same in both eras).
 */
export function toMcpToolError(err: unknown, toolName: string): CallToolResult {
  const e = asServiceError(err);
  if (e instanceof NotFoundError)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${toolName}`);
  const body: Record<string, unknown> = { error: e.code, message: e.message };
  if (e.details !== undefined) body.details = e.details;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** The caller's trace: the HTTP `traceparent` header, else the one a request carries in `_meta`. */
function traceparentOf(ctx: ServerContext): string | undefined {
  const header = ctx.http?.req?.headers.get('traceparent');
  if (header) return header;
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  return typeof meta?.traceparent === 'string' ? meta.traceparent : undefined;
}

type RawHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<CallToolResult>;

/**
 * A Server that serves tools/call with `arguments` exactly as sent. The SDK's own tools/call path
 * parses the request through its schema first: `arguments` of the wrong kind (null, an array, a
 * string) get an error whose message is a dump of schema issues, and an object rebuilt by the
 * parse loses a `__proto__` key that REST refuses. Here the executor sees what the client sent, so
 * MCP and REST validate it with the same rules and the same messages (results are built, and
 * checked against the tool's output schema, by the executor).
 *
 * The handler is registered the ordinary way (`setRequestHandler`: capability check, spec-method
 * bookkeeping); `_wrapHandler`, the SDK's hook for subclasses to wrap a registered handler, then
 * stores the raw handler in place of the parsing one. The hook is declared in the SDK's types, so
 * an upgrade that drops or renames it fails `tsc` here (`override`), and the tests of arguments of
 * the wrong kind fail if it stops being consulted.
 */
class AsSentToolCallServer extends Server {
  private rawToolCall: RawHandler | undefined;

  serveToolCallsAsSent(handler: RawHandler): void {
    this.rawToolCall = handler;
    this.setRequestHandler('tools/call', () => {
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'tools/call is served as sent');
    });
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method === 'tools/call' && this.rawToolCall) return this.rawToolCall;
    return super._wrapHandler(method, handler);
  }
}

/**
 * A low-level MCP server over the executor: one per request (modern, made for that request's
 * method when it is known), per session (legacy over HTTP) or per connection (stdio). The SDK is
 * the protocol and transport layer; listing, validation, the call, the output check and the audit
 * are the executor's, the one pipeline of every binding. Its instructions are written from the
 * tools this caller can see.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { views, guides } = options;
  const visible = visibleToolsOf(options);
  const listed = (tool: AnyTool) => toMcpTool(tool, views?.toolMetas[tool.name]);
  // Logging is deprecated from 2026-07-28 on and nothing is ever logged to clients; only the
  // legacy era still declares it (logging/setLevel answered, as 2025 clients expect).
  const capabilities: ServerCapabilities = {
    tools: { listChanged: true },
    ...(views || guides ? { resources: {} } : {}),
    ...(guides ? { prompts: {}, extensions: SKILLS_EXTENSION } : {}),
    ...(options.era === 'legacy' ? { logging: {} } : {}),
  };
  const serves = (method: string) => options.method === undefined || options.method === method;
  const server = new AsSentToolCallServer(options.serverInfo, {
    capabilities,
    ...(ANSWERS_WITH_INSTRUCTIONS.some(serves) ? { instructions: usageAdvice(visible()) } : {}),
    supportedProtocolVersions: [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS],
    // The views' list depends on the caller's tools as tools/list does; a view's HTML changes only
    // with a deploy, but whether the caller may read it follows its tools: the same hint for both.
    cacheHints: {
      'tools/list': TOOL_LIST_CACHE_HINT,
      'server/discover': TOOL_LIST_CACHE_HINT,
      ...(views || guides
        ? { 'resources/list': TOOL_LIST_CACHE_HINT, 'resources/read': TOOL_LIST_CACHE_HINT }
        : {}),
      // The guides listed follow the caller's tools too (as skills: mcp-skills.ts sets its own).
      ...(guides ? { 'prompts/list': TOOL_LIST_CACHE_HINT } : {}),
    },
  });

  if (serves('tools/list')) {
    server.setRequestHandler('tools/list', async () => ({
      tools: visible().map(listed),
    }));
  }
  const visibleNames = () => new Set(visible().map((tool) => tool.name));
  const shelves: ResourceShelf[] = [
    ...(views ? [viewShelf(views, visible)] : []),
    ...(guides ? [skillShelf(guides, visibleNames)] : []),
  ];
  if (shelves.length > 0 && (serves('resources/list') || serves('resources/read')))
    serveResources(server, shelves);
  if (guides && (serves('prompts/list') || serves('prompts/get'))) servePrompts(server, guides, visibleNames);
  if (guides) {
    const cacheFields = options.era === 'modern' ? TOOL_LIST_CACHE_HINT : {};
    serveSkills(server, guides, visibleNames, { serves, cacheFields });
  }
  if (serves('tools/call')) serveToolCalls(server, options);
  return server;
}

/** The tools this caller sees, narrowed to the toolsets its client chose. */
function visibleToolsOf(options: McpServerOptions): () => AnyTool[] {
  return () => chosenTools(options.executor.visibleTools(options.principal()), options.toolsets);
}

/**
 * A call of a tool outside the chosen toolsets: refused like an unknown tool (-32602), with a
 * message naming the tool's toolset and the chosen ones, so the client knows what to add.
 */
function refuseOutsideToolsets(name: string, choice: ToolsetChoice | undefined): void {
  if (!choice || choice.includes(name)) return;
  const toolset = choice.toolsetOf(name);
  if (toolset === undefined)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Tool ${name} is in the toolset '${toolset}', which this client did not choose (chosen: ` +
      `${choice.names.join(', ')}); add it to the toolsets query parameter or X-MCP-Toolsets header.`,
    { tool: name, toolset, chosen: choice.names },
  );
}

/** tools/call through the executor, arguments as sent (AsSentToolCallServer). */
function serveToolCalls(server: AsSentToolCallServer, options: McpServerOptions): void {
  const { executor } = options;
  server.serveToolCallsAsSent(async (request, ctx) => {
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name !== 'string') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'tools/call needs params.name, the tool name.',
      );
    }
    const name = params.name;
    refuseOutsideToolsets(name, options.toolsets);
    const traceparent = traceparentOf(ctx);
    try {
      const budget = (ctx.mcpReq._meta as Record<string, unknown> | undefined)?.[RESULT_BUDGET_META_KEY];
      const answer = await executor.execute({
        // Every MCP answer is for a model's context: the tool's budget unless the client set one.
        resultBudget: { value: budget, named: `_meta.${RESULT_BUDGET_META_KEY}` },
        principal: options.principal(),
        tool: name,
        args: params.arguments,
        transport: options.transport,
        requestId: options.newRequestId(),
        ...(traceparent ? { traceparent } : {}),
        signal: ctx.mcpReq.signal,
      });
      // structuredContent is the exact result; the text is its compact form (compact-text.ts).
      return {
        content: [{ type: 'text', text: compactText(answer.value) }],
        structuredContent: answer.value,
      };
    } catch (err) {
      return toMcpToolError(err, name);
    }
  });
}
