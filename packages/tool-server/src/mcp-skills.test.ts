import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { defineGuide } from '@svc/tool-kit';
import { createMcpServer, type McpEra } from './mcp-binding';
import { renderGuide } from './mcp-prompts';
import type { McpViews } from './mcp-views';
import { echoTool, makeExecutor, principal, recallTool } from './testing/fixtures';
import { type ToolsetChoice, Toolsets } from './toolsets';

// The guides as skills (the MCP Skills extension) beside the same guides as prompts and a view's
// resource, in both eras, served as a connection is (serveStdio, in memory).

const TOOLSETS = new Toolsets({ demo: [echoTool], recall: [recallTool] });
const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

const echoGuide = defineGuide({
  name: 'echo-a-word',
  title: 'Echo a word',
  description: 'Says a word back: "quoted", with a colon: and a #hash.',
  arguments: [{ name: 'word', description: 'The word.', required: true }],
  steps: [{ tool: 'demo.echo', args: { word: '{word}' }, lookFor: 'The word {word} back.' }],
});
const recallGuide = defineGuide({
  name: 'recall-something',
  title: 'Recall',
  description: 'Needs the recall toolset.',
  arguments: [],
  steps: [{ tool: 'demo.recall', args: {}, lookFor: 'Anything.' }],
});
const VIEWS: McpViews = {
  resources: [
    {
      uri: 'ui://demo/echo.html',
      name: 'echo',
      title: 'The echo view',
      description: 'Draws demo.echo.',
      mimeType: 'text/html;profile=mcp-app',
      text: '<!doctype html><title>echo</title>',
      _meta: {},
    },
  ],
  toolMetas: { [echoTool.name]: { ui: { resourceUri: 'ui://demo/echo.html' } } },
};
const ECHO_SKILL = 'skill://echo-a-word/SKILL.md';
const RECALL_SKILL = 'skill://recall-something/SKILL.md';

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
        views: VIEWS,
        guides: [echoGuide, recallGuide],
        ...(toolsets ? { toolsets } : {}),
      }),
    { transport: serverSide },
  );
  const client = new Client(
    { name: 'c', version: '0' },
    {
      versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' },
      capabilities: { extensions: { [SKILLS_EXTENSION_ID]: {} } },
    },
  );
  await client.connect(clientSide);
  return { client, skills: new SkillsClient(client), handle };
}

describe.each(['modern', 'legacy'] as const)('guides as skills over MCP, %s era', (era) => {
  it('declares the extension; lists, gets and reads each guide as a verified SKILL.md', async () => {
    const { client, skills, handle } = await connect(era);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [SKILLS_EXTENSION_ID]: {} });
    expect(skills.supported).toBe(true);
    const listed = await skills.list();
    expect(listed.skills.map((s) => s.uri)).toEqual([ECHO_SKILL, RECALL_SKILL]);
    if (era === 'modern') expect(listed).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const echo = listed.skills[0]!;
    expect(echo.frontmatter).toEqual({
      name: 'echo-a-word',
      description: `${echoGuide.description} Uses the tools demo.echo.`,
    });
    expect((await skills.get(ECHO_SKILL)).skill).toEqual(echo);
    // read() checks the size, the digest and the frontmatter against the entry.
    const file = await skills.read(echo);
    expect(file.verified).toBe(true);
    expect(file.body).toContain('# Echo a word');
    expect(file.body).toContain('- `word`: The word.');
    // The steps are the prompt's, with the input as a placeholder: one text for both.
    const prompt = renderGuide(echoGuide, { word: '<word>' }).messages[0]!.content;
    const step = '1. demo.echo {"word":"<word>"}\n   Look for: The word <word> back.';
    expect(prompt).toMatchObject({ text: expect.stringContaining(step) });
    expect(file.body).toContain(step);
    await handle.close();
  });

  it('serves the views and the skills from the same resources handlers', async () => {
    const { client, handle } = await connect(era);
    // resources/list: the view as before, then each skill's SKILL.md named as its frontmatter.
    const listed = (await client.listResources()).resources;
    expect(listed.map((r) => r.uri)).toEqual(['ui://demo/echo.html', ECHO_SKILL, RECALL_SKILL]);
    expect(listed[1]).toMatchObject({
      name: 'echo-a-word',
      description: `${echoGuide.description} Uses the tools demo.echo.`,
      mimeType: 'text/markdown',
    });
    const view = await client.readResource({ uri: 'ui://demo/echo.html' });
    expect(view.contents[0]).toMatchObject({ text: '<!doctype html><title>echo</title>' });
    const skill = await client.readResource({ uri: ECHO_SKILL });
    expect(skill.contents[0]).toMatchObject({ uri: ECHO_SKILL, mimeType: 'text/markdown' });
    await expect(client.readResource({ uri: 'skill://nope/SKILL.md' })).rejects.toMatchObject({
      code: -32602,
      data: { uri: 'skill://nope/SKILL.md' },
    });
    await handle.close();
  });

  it('offers only the skills whose tools are all in the chosen toolsets, as the prompts do', async () => {
    const { client, skills, handle } = await connect(era, TOOLSETS.choose(['demo']));
    expect((await skills.list()).skills.map((s) => s.uri)).toEqual([ECHO_SKILL]);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['echo-a-word']);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      'ui://demo/echo.html',
      ECHO_SKILL,
    ]);
    await expect(skills.get(RECALL_SKILL)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`No skill is served at ${RECALL_SKILL}`),
    });
    await expect(client.readResource({ uri: RECALL_SKILL })).rejects.toMatchObject({ code: -32602 });
    await handle.close();
  });
});
