// The same call as the tool runner just made, for a script or an MCP client. The token is always
// the placeholder `$SVC_TOKEN`: the console's own token never leaves the server, and a page must
// not hold one anyway (pages are shown, shared, screenshotted).

/** A POSIX shell single-quoted word: only `'` itself needs care. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlCommand(gatewayUrl: string, tool: string, input: unknown): string {
  const url = `${gatewayUrl}/v1/tools/${encodeURIComponent(tool)}`;
  return (
    `curl -s ${shellQuote(url)} \\\n` +
    '  -H "Authorization: Bearer $SVC_TOKEN" \\\n' +
    '  -H "Content-Type: application/json" \\\n' +
    `  -d ${shellQuote(JSON.stringify(input ?? {}))}`
  );
}

/** The MCP `tools/call` request (JSON-RPC 2.0) an MCP client sends for the same call. */
export function mcpToolsCall(tool: string, input: unknown, id = 1): string {
  return JSON.stringify(
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: input ?? {} } },
    null,
    2,
  );
}
