// The stdio client configuration of the standalone's banner; the HTTP ones are @svc/client-config's.

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
