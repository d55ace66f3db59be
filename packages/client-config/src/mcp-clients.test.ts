import {
  claudeCodeCommand,
  claudeDesktopJson,
  curlExample,
  inspectorCommand,
  MODERN_MCP_REVISION,
  mcpCurlExample,
  mcpServersJson,
} from './mcp-clients';

const endpoint = { mcpUrl: 'https://mcp.example.com/mcp', token: 'svc_pat_abc' };

describe('MCP client configurations', () => {
  it('gives StreamableHTTP clients the URL and the bearer header (type http, url, Authorization)', () => {
    expect(JSON.parse(mcpServersJson(endpoint))).toEqual({
      mcpServers: {
        observability: {
          type: 'http',
          url: endpoint.mcpUrl,
          headers: { Authorization: `Bearer ${endpoint.token}` },
        },
      },
    });
    expect(claudeCodeCommand(endpoint)).toBe(
      'claude mcp add --transport http observability https://mcp.example.com/mcp --header "Authorization: Bearer svc_pat_abc"',
    );
    expect(inspectorCommand(endpoint)).toContain(
      '--transport http --header "Authorization: Bearer svc_pat_abc"',
    );
  });

  it('keeps the token out of the bridge command line of Claude Desktop', () => {
    const server = JSON.parse(claudeDesktopJson(endpoint)).mcpServers.observability;
    expect(server.args).toContain(endpoint.mcpUrl);
    expect(server.args.join(' ')).not.toContain(endpoint.token);
    expect(server.env.SVC_AUTH_HEADER).toBe(`Bearer ${endpoint.token}`);
  });

  it('calls a tool over REST with curl', () => {
    expect(curlExample('https://mcp.example.com', 'svc_pat_abc')).toMatch(
      /^curl -s https:\/\/mcp\.example\.com\/v1\/tools\/log\.aggregate -H "Authorization: Bearer svc_pat_abc"/,
    );
  });

  it('makes one MCP call with curl in the 2026-07-28 revision: headers that match the body, no session', () => {
    const command = mcpCurlExample(endpoint);
    const body = JSON.parse(/-d '(.*)'$/.exec(command)![1]!) as {
      method: string;
      params: { name: string; _meta: Record<string, unknown> };
    };
    expect(command).toContain(`-H "Mcp-Method: ${body.method}"`);
    expect(command).toContain(`-H "Mcp-Name: ${body.params.name}"`);
    expect(command).toContain(`-H "MCP-Protocol-Version: ${MODERN_MCP_REVISION}"`);
    expect(body.params._meta['io.modelcontextprotocol/protocolVersion']).toBe(MODERN_MCP_REVISION);
    expect(command).not.toMatch(/Mcp-Session-Id/i);
    // The live check (the command run against a real stack) is in the standalone's tools e2e.
  });
});
