import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from './mcp-binding';
import { makeExecutor, principal } from './testing/fixtures';

async function connect() {
  const { executor, audit } = makeExecutor();
  const server = createMcpServer({
    executor,
    principal: () => principal(),
    transport: 'mcp',
    serverInfo: { name: 'test', version: '0.0.0' },
    newRequestId: () => 'req-mcp',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'c', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, audit };
}

describe('MCP binding', () => {
  it('lists visible tools with input and output schemas and read-only annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['demo.echo']);
    const echo = tools[0]!;
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['word'],
    });
    expect(echo.outputSchema).toMatchObject({ type: 'object' });
    expect(echo.title).toBe('Echo');
    expect(echo.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('writes its instructions from the tools this caller can see', async () => {
    const { client } = await connect();
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain('Start with the overview tools (demo.echo)');
    expect(instructions).not.toContain('demo.traced');
  });

  it('returns structuredContent and the same JSON as text', async () => {
    const { client, audit } = await connect();
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'hey' } });
    expect(result.structuredContent).toEqual({
      items: [{ word: 'hey', project: 'prj_a' }],
      limit: 5,
      has_more: false,
    });
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
    expect(audit.entries[0]).toMatchObject({ transport: 'mcp', status: 'ok' });
  });

  it('answers an unknown or hidden tool with JSON-RPC -32602', async () => {
    const { client } = await connect();
    await expect(client.callTool({ name: 'demo.nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.callTool({ name: 'demo.traced', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('answers invalid input with an isError result naming the issue', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'x', project_id: 'p' } });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body.error).toBe('invalid_input');
    expect(JSON.stringify(body.details)).toContain('project_id');
  });
});
