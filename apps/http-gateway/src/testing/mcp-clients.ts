// Test-only: the two official MCP clients over real HTTP, behind one shape, so that every MCP test
// of the gateway runs in both protocol eras. `modern` is the v2 client pinned to 2026-07-28 (no
// session; Mcp-Method/Mcp-Name headers; change notifications on a subscriptions/listen stream);
// `legacy` is the 1.32.2 client the clients deployed today are built on (initialize, a session,
// change notifications on the session's GET stream).
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export type Era = 'modern' | 'legacy';
export const ERAS: readonly Era[] = ['modern', 'legacy'];
export const MODERN_VERSION = '2026-07-28';

export interface ListedTool {
  name: string;
  annotations?: { readOnlyHint?: boolean };
  _meta?: Record<string, unknown>;
}

export interface CallResult {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}

export interface McpTestClient {
  era: Era;
  listTools(): Promise<{ tools: ListedTool[] } & Record<string, unknown>>;
  callTool(name: string, args: unknown): Promise<CallResult>;
  /**
   * Calls `onChange` on every tools/list_changed; resolves once the channel that carries them is
   * open (modern: the listen stream acknowledged; legacy: the session's GET stream is the SDK's).
   */
  onToolListChanged(onChange: () => void): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export async function connectMcp(
  url: string,
  token: string,
  era: Era,
  options: ConnectOptions = {},
): Promise<McpTestClient> {
  const endpoint = new URL('/mcp', url);
  const requestInit = { headers: { Authorization: `Bearer ${token}`, ...options.headers } };
  if (era === 'legacy') {
    const client = new LegacyClient({ name: 'gateway-test', version: '1.0.0' });
    await client.connect(
      new LegacyTransport(endpoint, { requestInit, ...(options.fetch ? { fetch: options.fetch } : {}) }),
    );
    return {
      era,
      listTools: () => client.listTools() as never,
      callTool: (name, args) =>
        client.callTool({ name, arguments: args as Record<string, unknown> }) as never,
      async onToolListChanged(onChange) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onChange());
      },
      close: () => client.close(),
    };
  }
  const client = new ModernClient(
    { name: 'gateway-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_VERSION } } },
  );
  await client.connect(
    new ModernTransport(endpoint, { requestInit, ...(options.fetch ? { fetch: options.fetch } : {}) }),
  );
  const subscriptions: { close(): Promise<void> }[] = [];
  return {
    era,
    listTools: () => client.listTools() as never,
    callTool: (name, args) => client.callTool({ name, arguments: args as Record<string, unknown> }) as never,
    async onToolListChanged(onChange) {
      client.setNotificationHandler('notifications/tools/list_changed', async () => onChange());
      subscriptions.push(await client.listen({ toolsListChanged: true }));
    },
    async close() {
      for (const s of subscriptions.splice(0)) await s.close().catch(() => {});
      await client.close();
    },
  };
}

/** What a 2026-07-28 request carries in `params._meta` instead of a session's initialize. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The headers of a raw modern request: the standard Mcp-Method and, for a call, Mcp-Name. */
export function modernHeaders(token: string, method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  };
}

/** A raw modern request body: `params` with the per-request `_meta`. */
export function modernBody(id: number, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } };
}

/** The JSON-RPC message of an answer sent as JSON or as a one-event SSE stream. */
export function rpcAnswerOf(text: string): Record<string, unknown> {
  const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
  return JSON.parse(data) as Record<string, unknown>;
}
