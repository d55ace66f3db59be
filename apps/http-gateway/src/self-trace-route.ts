import type { IncomingMessage } from 'node:http';
import type { ToolRegistry } from '@svc/tool-server';
import { mcpRequestOf } from './mcp-request';

const REST_PREFIX = '/v1/tools/';

/**
 * The operation of an MCP POST: what mcp-request.ts read (a modern request's from its checked
 * Mcp-Method and Mcp-Name headers), else the body's; a batch is left as `/mcp`.
 */
function mcpOperation(req: IncomingMessage): string | undefined {
  const read = mcpRequestOf(req);
  if (read) {
    if (read.messages.length !== 1) return undefined;
    const [{ method, tool }] = read.messages as [{ method: string; tool?: string }];
    if (method.length > 64) return undefined;
    return tool === undefined ? method : `${method} ${tool}`;
  }
  return bodyOperation((req as { body?: unknown }).body);
}

/** The tool a JSON-RPC body calls, when it is one `tools/call`. */
function bodyOperation(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string' || method.length > 64) return undefined;
  return method === 'tools/call' && typeof params?.name === 'string' ? `${method} ${params.name}` : method;
}

/**
 * The operation of the gateway's server spans: the tool's name in it, so trace.search finds the
 * slow calls of one tool (`POST /v1/tools/log.search`, `POST /mcp tools/call log.search`). Only
 * registered names: an unknown one stays `:name`, so callers cannot mint operations.
 */
export function selfTraceRoute(registry: ToolRegistry): (req: IncomingMessage) => string | undefined {
  const known = (name: unknown) => typeof name === 'string' && registry.get(name) !== undefined;
  return (req) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith(REST_PREFIX)) {
      let name: string;
      try {
        name = decodeURIComponent(path.slice(REST_PREFIX.length));
      } catch {
        return undefined;
      }
      return `${REST_PREFIX}${known(name) ? name : ':name'}`;
    }
    if (path === '/mcp' && req.method === 'POST') {
      const operation = mcpOperation(req);
      if (!operation) return '/mcp';
      const [method, name] = operation.split(' ');
      if (name === undefined) return `/mcp ${method}`;
      return `/mcp ${method} ${known(name) ? name : ':name'}`;
    }
    return undefined;
  };
}
