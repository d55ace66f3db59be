import {
  claudeCodeCommand,
  claudeDesktopJson,
  curlExample,
  inspectorCommand,
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
});
