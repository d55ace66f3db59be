import { randomUUID } from 'node:crypto';
import type { Server, Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Capability, InvestigationGuide, Logger, Principal } from '@svc/tool-kit';
import { createMcpServer, type McpViews, type ToolExecutor, type ToolsetChoice } from '@svc/tool-server';

export interface StdioAppDeps {
  executor: ToolExecutor;
  projectId: string;
  /** Without an org the controlled tools (trace, recall, verify) fail closed. */
  orgId: string | null;
  /** The org's enabled controlled capabilities, kept current by the caller. */
  capabilities: () => ReadonlySet<Capability>;
  /** Who the local user is, for the audit trail (there is no token). */
  localUser: string;
  /** MCP Apps views served as resources, with `_meta` on their tools. Absent: none. */
  views?: McpViews;
  /** The toolsets chosen for this server (SVC_MCP_TOOLSETS). Absent: the full catalog. */
  toolsets?: ToolsetChoice;
  /** Investigation guides served as prompts. Absent: none. */
  guides?: readonly InvestigationGuide[];
  version: string;
  logger: Logger;
}

export interface StdioApp {
  /**
   * Serves one connection (the process's stdin/stdout unless `transport` is given) in the era its
   * client opens with: 2026-07-28 (a request carrying its `_meta`; change notifications on a
   * `subscriptions/listen` subscription) or a 2025 revision (initialize; unsolicited
   * notifications), as the SDK's stdio entry decides.
   */
  serve(transport?: Transport): StdioServerHandle;
  /** Tells the connected client the tool list changed (a backend group came or went). */
  notifyToolListChanged(): Promise<void>;
}

/** The stdio MCP server: the same pipeline as HTTP, the project fixed by configuration. */
export function createStdioApp(deps: StdioAppDeps): StdioApp {
  const principal = (): Principal => ({
    tokenId: null,
    userId: deps.localUser,
    orgId: deps.orgId,
    projectId: deps.projectId,
    capabilities: deps.orgId === null ? new Set() : deps.capabilities(),
  });
  // The instances the SDK pinned to connections (one per connection; a probe's is closed again).
  const live = new Set<Server>();
  return {
    serve(transport) {
      return serveStdio(
        ({ era }) => {
          const server = createMcpServer({
            executor: deps.executor,
            principal,
            transport: 'stdio',
            serverInfo: { name: 'observability-stdio', version: deps.version },
            newRequestId: () => randomUUID(),
            era,
            ...(deps.views ? { views: deps.views } : {}),
            ...(deps.toolsets ? { toolsets: deps.toolsets } : {}),
            ...(deps.guides ? { guides: deps.guides } : {}),
          });
          live.add(server);
          server.onclose = () => live.delete(server);
          return server;
        },
        {
          ...(transport ? { transport } : {}),
          onerror: (err) => deps.logger.debug({ err }, 'stdio MCP message refused or failed'),
        },
      );
    },
    async notifyToolListChanged() {
      // On a modern connection the SDK's entry turns this into a notification on the client's
      // listen subscription (none open: nothing is sent); on a legacy one it goes out as is.
      await Promise.all(
        [...live].map((s) =>
          s.sendToolListChanged().catch((err) => deps.logger.debug({ err }, 'list_changed not delivered')),
        ),
      );
    },
  };
}
