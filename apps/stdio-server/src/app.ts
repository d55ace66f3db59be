import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Capability, Principal } from '@svc/tool-kit';
import { createMcpServer, type ToolExecutor } from '@svc/tool-server';

export interface StdioAppDeps {
  executor: ToolExecutor;
  projectId: string;
  /** Without an org the controlled tools (trace, recall, verify) fail closed. */
  orgId: string | null;
  /** The org's enabled controlled capabilities, kept current by the caller. */
  capabilities: () => ReadonlySet<Capability>;
  /** Who the local user is, for the audit trail (there is no token). */
  localUser: string;
  version: string;
}

/** The stdio MCP server: the same pipeline as HTTP, the project fixed by configuration. */
export function createStdioApp(deps: StdioAppDeps): Server {
  const principal = (): Principal => ({
    tokenId: null,
    userId: deps.localUser,
    orgId: deps.orgId,
    projectId: deps.projectId,
    capabilities: deps.orgId === null ? new Set() : deps.capabilities(),
  });
  return createMcpServer({
    executor: deps.executor,
    principal,
    transport: 'stdio',
    serverInfo: { name: 'observability-stdio', version: deps.version },
    newRequestId: () => randomUUID(),
  });
}
