import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { defineGuide } from '@svc/tool-kit';
import { createMcpServer, type McpEra } from './mcp-binding';
import { echoTool, makeExecutor, principal, recallTool } from './testing/fixtures';
import { type ToolsetChoice, Toolsets } from './toolsets';

// Toolsets and prompts over MCP in both eras: served as a connection is (serveStdio, in memory).

const TOOLSETS = new Toolsets({ demo: [echoTool], recall: [recallTool] });

const echoGuide = defineGuide({
  name: 'echo-a-word',
  title: 'Echo a word',
  description: 'Says a word back.',
  arguments: [
    { name: 'word', description: 'The word.', required: true },
    { name: 'limit', description: 'How many.', required: false },
  ],
  steps: [
    { tool: 'demo.echo', args: { word: '{word}', limit: '{limit}' }, lookFor: 'The word {word} back.' },
  ],
});
const recallGuide = defineGuide({
  name: 'recall-something',
  title: 'Recall',
  description: 'Needs the recall toolset.',
  arguments: [],
  steps: [{ tool: 'demo.recall', args: {}, lookFor: 'Anything.' }],
});

async function connect(era: McpEra, toolsets?: ToolsetChoice) {
  const { executor } = makeExecutor({ recallUp: true });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    (ctx) =>
      createMcpServer({
        executor,
        principal: () => principal(),
        transport: 'mcp',
        serverInfo: { name: 'test', version: '0.0.0' },
        newRequestId: () => 'req',
        era: ctx.era,
        guides: [echoGuide, recallGuide],
        ...(toolsets ? { toolsets } : {}),
      }),
    { transport: serverSide },
  );
  const client = new Client(
    { name: 'c', version: '0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  await client.connect(clientSide);
  return { client, handle };
}

describe.each(['modern', 'legacy'] as const)('toolsets and prompts over MCP, %s era', (era) => {
  it('lists every tool and guide without a choice', async () => {
    const { client, handle } = await connect(era);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['demo.echo', 'demo.recall']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual([
      'echo-a-word',
      'recall-something',
    ]);
    await handle.close();
  });

  it('shrinks tools/list and prompts/list to the chosen toolsets and refuses other tools by name', async () => {
    const { client, handle } = await connect(era, TOOLSETS.choose(['demo']));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['demo.echo']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['echo-a-word']);
    await expect(client.callTool({ name: 'demo.recall', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Tool demo.recall is in the toolset 'recall'"),
    });
    await expect(client.callTool({ name: 'demo.nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: demo.nope'),
    });
    expect((await client.callTool({ name: 'demo.echo', arguments: { word: 'hi' } })).isError).toBeFalsy();
    await handle.close();
  });

  it('lists the guides with the cache hint of tools/list to a modern client', async () => {
    const { client, handle } = await connect(era);
    const listed = (await client.listPrompts()) as { ttlMs?: number; cacheScope?: string };
    if (era === 'modern') expect([listed.ttlMs, listed.cacheScope]).toEqual([60_000, 'private']);
    else expect(listed.ttlMs).toBeUndefined();
    await handle.close();
  });

  it('renders a guide with its arguments filled in, leaving out an optional one not given', async () => {
    const { client, handle } = await connect(era);
    const got = await client.getPrompt({ name: 'echo-a-word', arguments: { word: 'hey' } });
    expect(got.messages).toHaveLength(1);
    expect(got.messages[0]!.content).toEqual({
      type: 'text',
      text:
        'Echo a word. Says a word back.\nCall these tools in order; values in <...> come from an earlier answer:\n' +
        '1. demo.echo {"word":"hey"}\n   Look for: The word hey back.',
    });
    const withLimit = await client.getPrompt({ name: 'echo-a-word', arguments: { word: 'hey', limit: '3' } });
    expect(JSON.stringify(withLimit.messages[0]!.content)).toContain(
      'demo.echo {\\"word\\":\\"hey\\",\\"limit\\":3}',
    );
    await expect(client.getPrompt({ name: 'echo-a-word', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('needs the argument word'),
    });
    await handle.close();
  });
});

describe('Toolsets.choose', () => {
  it('reads comma lists from the query and the header together, in catalog order', () => {
    expect(TOOLSETS.choose(['recall', ' Demo '])?.names).toEqual(['demo', 'recall']);
    expect(TOOLSETS.choose([undefined, ' , '])).toBeUndefined();
  });

  it('refuses an unknown name with the known ones', () => {
    expect(() => TOOLSETS.choose(['demo,crash'])).toThrow(
      "Unknown toolset 'crash': choose among demo, recall.",
    );
  });
});
