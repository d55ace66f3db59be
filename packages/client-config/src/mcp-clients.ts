// Ready-to-paste client configurations for the MCP endpoint: server type http, the /mcp URL and the
// bearer token header (README, "Connecting an MCP client"). The standalone's banner prints them
// with the demo token; the web console shows them with a token just created. The endpoint serves
// both protocol eras, so the same configuration suits every client: one speaking 2026-07-28 sends
// self-contained requests with no session, one speaking a 2025 revision opens a session.

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

/** The protocol revision whose requests need no session: one curl command is a whole MCP call. */
export const MODERN_MCP_REVISION = '2026-07-28';

/**
 * One MCP tools/call over plain HTTP in the 2026-07-28 revision: no initialize, no session; the
 * method and tool named in the Mcp-Method and Mcp-Name headers (the server checks them against
 * the body), the client's version, identity and capabilities in the request's `_meta`.
 */
export function mcpCurlExample({ mcpUrl, token }: Endpoint): string {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'log.aggregate',
      arguments: { group_by: 'level' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_MCP_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  return (
    `curl -s ${mcpUrl} -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" ` +
    `-H "Accept: application/json, text/event-stream" -H "MCP-Protocol-Version: ${MODERN_MCP_REVISION}" ` +
    `-H "Mcp-Method: tools/call" -H "Mcp-Name: log.aggregate" -d '${JSON.stringify(body)}'`
  );
}

export function curlExample(gatewayUrl: string, token: string): string {
  return (
    `curl -s ${gatewayUrl}/v1/tools/log.aggregate -H "Authorization: Bearer ${token}" ` +
    `-H "Content-Type: application/json" -d '{"group_by":"level"}'`
  );
}
