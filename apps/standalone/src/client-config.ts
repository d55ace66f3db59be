// Ready-to-paste client configurations for the MCP endpoint: server type http, the /mcp URL and the
// bearer token header (README, "Connecting an MCP client").

export interface Endpoint {
  mcpUrl: string;
  token: string;
}

export function claudeCodeCommand({ mcpUrl, token }: Endpoint): string {
  return `claude mcp add --transport http observability ${mcpUrl} --header "Authorization: Bearer ${token}"`;
}

/** Cursor (.cursor/mcp.json) and other clients that speak StreamableHTTP natively. */
export function mcpServersJson({ mcpUrl, token }: Endpoint): string {
  return JSON.stringify(
    {
      mcpServers: {
        observability: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } },
      },
    },
    null,
    2,
  );
}

/**
 * Claude Desktop's config file launches local commands only, so it reaches an HTTP server through
 * the mcp-remote bridge; the token travels in an env var so it does not show in process lists.
 */
export function claudeDesktopJson({ mcpUrl, token }: Endpoint): string {
  return JSON.stringify(
    {
      mcpServers: {
        observability: {
          command: 'npx',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${VAR} itself
          args: ['-y', 'mcp-remote', mcpUrl, '--header', 'Authorization:${SVC_AUTH_HEADER}'],
          env: { SVC_AUTH_HEADER: `Bearer ${token}` },
        },
      },
    },
    null,
    2,
  );
}

export function inspectorCommand({ mcpUrl, token }: Endpoint): string {
  return (
    `npx -y @modelcontextprotocol/inspector@latest --cli ${mcpUrl} --transport http ` +
    `--header "Authorization: Bearer ${token}" --method tools/list`
  );
}

export function curlExample(gatewayUrl: string, token: string): string {
  return (
    `curl -s ${gatewayUrl}/v1/tools/log.aggregate -H "Authorization: Bearer ${token}" ` +
    `-H "Content-Type: application/json" -d '{"group_by":"level"}'`
  );
}

export interface StdioTarget {
  /** The repository checkout the stdio server runs from. */
  repoDir: string;
  projectId: string;
  orgId: string;
  coreUrl: string;
  identityUrl: string;
  /** The optional services: their tool groups are listed while they answer. */
  recallUrl?: string;
  copilotUrl?: string;
  /** Where the stack keeps its internal secret, which the stdio server reads from there. */
  dataDir: string;
}

/**
 * The stdio server for one trusted local user: no token, the project fixed by env, the core and
 * identity of this stack, and the data dir whose internal secret it reads (none in the config).
 */
export function stdioJson(t: StdioTarget): string {
  return JSON.stringify(
    {
      mcpServers: {
        observability: {
          command: 'pnpm',
          args: ['--silent', '--dir', t.repoDir, '--filter', '@svc/stdio-server', 'start'],
          env: {
            SVC_MCP_STDIO_TRUSTED_LOCAL: '1',
            SVC_MCP_PROJECT_ID: t.projectId,
            SVC_MCP_ORG_ID: t.orgId,
            SVC_OBSERVABILITY_ENDPOINT: t.coreUrl,
            SVC_IDENTITY_INTERNAL_URL: t.identityUrl,
            ...(t.recallUrl ? { SVC_RECALL_ENDPOINT: t.recallUrl } : {}),
            ...(t.copilotUrl ? { SVC_COPILOT_ENDPOINT: t.copilotUrl } : {}),
            SVC_DATA_DIR: t.dataDir,
          },
        },
      },
    },
    null,
    2,
  );
}
