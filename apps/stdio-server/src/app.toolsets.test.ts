import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { silentLogger } from '@svc/logger';
import { defineGuide } from '@svc/tool-kit';
import { Toolsets } from '@svc/tool-server';
import { echoTool, makeExecutor, recallTool } from '@svc/tool-server/testing';
import { createStdioApp } from './app';

// The stdio app with its configured toolsets (SVC_MCP_TOOLSETS) and the guides as prompts, for
// a client of each era: the same narrowing as over HTTP.

const GUIDE = defineGuide({
  name: 'echo-a-word',
  title: 'Echo a word',
  description: 'Says a word back.',
  arguments: [{ name: 'word', description: 'The word.', required: true }],
  steps: [{ tool: 'demo.echo', args: { word: '{word}' }, lookFor: 'The word back.' }],
});

async function connect(era: 'modern' | 'legacy', toolsets: string[]) {
  const { executor } = makeExecutor({ recallUp: true });
  const choice = new Toolsets({ demo: [echoTool], recall: [recallTool] }).choose([toolsets.join(',')]);
  const stdio = createStdioApp({
    executor,
    projectId: 'prj_local',
    orgId: null,
    capabilities: () => new Set(),
    localUser: 'local:tester',
    ...(choice ? { toolsets: choice } : {}),
    guides: [GUIDE],
    version: '0.0.1',
    logger: silentLogger,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = stdio.serve(serverSide);
  const client =
    era === 'modern'
      ? new Client({ name: 'v2', version: '0' }, { versionNegotiation: { mode: 'auto' } })
      : new V1Client({ name: 'v1', version: '0' });
  await client.connect(clientSide as never);
  return { client: client as Client, handle };
}

describe.each(['modern', 'legacy'] as const)('stdio toolsets and prompts, %s client', (era) => {
  it('serves only the configured toolsets, and the guides whose tools they hold', async () => {
    const recallOnly = await connect(era, ['recall']);
    expect((await recallOnly.client.listTools()).tools.map((t) => t.name)).toEqual(['demo.recall']);
    expect((await recallOnly.client.listPrompts()).prompts).toEqual([]);
    await recallOnly.handle.close();

    const all = await connect(era, []);
    expect((await all.client.listTools()).tools.map((t) => t.name)).toEqual(['demo.echo', 'demo.recall']);
    const got = await all.client.getPrompt({ name: 'echo-a-word', arguments: { word: 'hey' } });
    expect(JSON.stringify(got.messages)).toContain('demo.echo {\\"word\\":\\"hey\\"}');
    await all.handle.close();
  });
});
