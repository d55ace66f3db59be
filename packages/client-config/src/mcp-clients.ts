// Ready-to-paste client configurations for the MCP endpoint: server type http, the /mcp URL and the
// bearer token header (README, "Connecting an MCP client"). The standalone's banner prints them
// with the demo token; the web console shows them with a token just created.

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
