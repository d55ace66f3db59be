import { randomUUID } from 'node:crypto';
import type { AuthInfo, Server } from '@modelcontextprotocol/server';
import type { InvestigationGuide, Principal } from '@svc/tool-kit';
import {
  createMcpServer,
  type McpEra,
  type McpViews,
  SERVICE_INFO,
  type ToolExecutor,
  type ToolsetChoice,
} from '@svc/tool-server';

/** Makes the low-level MCP server of one request, session or era (mcp-binding.ts). */
export type McpServerMaker = (
  principal: () => Principal,
  era: McpEra,
  method?: string,
  toolsets?: ToolsetChoice,
) => Server;

export function mcpServerMaker(
  executor: ToolExecutor,
  views: McpViews | undefined,
  guides: readonly InvestigationGuide[] | undefined,
): McpServerMaker {
  return (principal, era, method, toolsets) =>
    createMcpServer({
      executor,
      principal,
      transport: 'mcp',
      serverInfo: { name: SERVICE_INFO.name, version: SERVICE_INFO.version },
      newRequestId: () => randomUUID(),
      era,
      ...(views ? { views } : {}),
      ...(method !== undefined ? { method } : {}),
      ...(toolsets ? { toolsets } : {}),
      ...(guides ? { guides } : {}),
    });
}

/**
 * The SDK's word for "who is calling": the gateway's principal rides in `extra`. The token itself
 * is not passed on (authentication is the gateway's, done before the SDK sees the request).
 */
export function authInfoOf(principal: Principal, method?: string, toolsets?: ToolsetChoice): AuthInfo {
  return {
    token: '',
    clientId: principal.tokenId ?? 'local',
    scopes: [],
    // A modern request's method (read and checked before, mcp-request.ts): its server is made for
    // it; the toolsets its client chose (mcp-endpoint.ts) narrow what that server serves.
    extra: {
      principal,
      ...(method === undefined ? {} : { method }),
      ...(toolsets === undefined ? {} : { toolsets }),
    },
  };
}

/** The toolsets a request's client chose, carried beside its principal (authInfoOf). */
export function toolsetsOfAuthInfo(authInfo: AuthInfo | undefined): ToolsetChoice | undefined {
  return authInfo?.extra?.toolsets as ToolsetChoice | undefined;
}

export function principalOfAuthInfo(authInfo: AuthInfo | undefined): Principal {
  const principal = authInfo?.extra?.principal as Principal | undefined;
  if (!principal) throw new Error('an MCP server was asked for without the principal of its request');
  return principal;
}
