import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Principal } from '@svc/tool-kit';
import { createMcpServer, type McpEra, TOOL_LIST_CACHE_HINT } from './mcp-binding';
import type { McpViews } from './mcp-views';
import { echoTool, makeExecutor, principal, recallTool, traceOnlyTool } from './testing/fixtures';

// MCP Apps views on the binding, served as the SDK serves a connection (serveStdio over an
// in-memory pair): demo.echo's view is visible to everyone, demo.traced's only with vis_trace,
// demo.recall has none.

const VIEW_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };
const view = (name: string, tool: string) => ({
  uri: `ui://demo/${name}.html`,
  name,
  title: `The ${name} view`,
  description: `Draws the result of ${tool}.`,
  mimeType: 'text/html;profile=mcp-app',
  text: `<!doctype html><title>${name}</title><main id="${name}"></main>`,
  _meta: VIEW_META,
});
const VIEWS: McpViews = {
  resources: [view('echo', echoTool.name), view('traced', traceOnlyTool.name)],
  toolMetas: {
    [echoTool.name]: { ui: { resourceUri: 'ui://demo/echo.html' } },
    [traceOnlyTool.name]: { ui: { resourceUri: 'ui://demo/traced.html' } },
  },
};
const [ECHO_VIEW, TRACED_VIEW] = VIEWS.resources as [
  (typeof VIEWS.resources)[0],
  (typeof VIEWS.resources)[0],
];
const WITH_TRACE = principal({ capabilities: new Set(['vis_trace']) });

function serve(options: { views?: McpViews; caller?: Principal } = {}) {
  const { executor } = makeExecutor({ recallUp: true });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    (ctx) =>
      createMcpServer({
        executor,
        principal: () => options.caller ?? principal(),
        transport: 'mcp',
        serverInfo: { name: 'test', version: '0.0.0' },
        newRequestId: () => 'req-mcp',
        era: ctx.era,
        ...(options.views ? { views: options.views } : {}),
      }),
    { transport: serverSide },
  );
  return { clientSide, handle };
}

async function connect(era: McpEra, options: { views?: McpViews; caller?: Principal } = {}) {
  const served = serve(options);
  const client = new Client(
    { name: 'c', version: '0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  await client.connect(served.clientSide);
  return { client, handle: served.handle };
}

describe.each(['modern', 'legacy'] as const)('MCP Apps views, %s era', (era) => {
  it('declares the resources capability only when there are views', async () => {
    const served = await connect(era, { views: VIEWS });
    expect(served.client.getServerCapabilities()?.resources).toEqual({});
    await served.handle.close();
    const bare = await connect(era);
    expect(bare.client.getServerCapabilities()?.resources).toBeUndefined();
    await bare.handle.close();
  });

  it('lists the views of the visible tools, without their HTML', async () => {
    const plain = await connect(era, { views: VIEWS });
    const { text: _text, ...echoListed } = ECHO_VIEW;
    expect((await plain.client.listResources()).resources).toEqual([echoListed]);
    await plain.handle.close();

    const traced = await connect(era, { views: VIEWS, caller: WITH_TRACE });
    const listed = (await traced.client.listResources()).resources;
    expect(listed.map((r) => r.uri)).toEqual([ECHO_VIEW.uri, TRACED_VIEW.uri]);
    expect(listed.every((r) => !('text' in r))).toBe(true);
    await traced.handle.close();
  });

  it('gives modern clients the tools/list cache hint on resources/list and resources/read', async () => {
    const { client, handle } = await connect(era, { views: VIEWS });
    const listed = (await client.listResources()) as Record<string, unknown>;
    const read = (await client.readResource({ uri: ECHO_VIEW.uri })) as Record<string, unknown>;
    for (const answer of [listed, read]) {
      const hint = { ttlMs: answer.ttlMs, cacheScope: answer.cacheScope };
      if (era === 'modern') expect(hint).toEqual(TOOL_LIST_CACHE_HINT);
      else expect(hint).toEqual({ ttlMs: undefined, cacheScope: undefined });
    }
    await handle.close();
  });

  it('reads a view: its HTML, MIME type and `_meta.ui`', async () => {
    const { client, handle } = await connect(era, { views: VIEWS });
    const read = await client.readResource({ uri: ECHO_VIEW.uri });
    expect(read.contents).toEqual([
      { uri: ECHO_VIEW.uri, mimeType: ECHO_VIEW.mimeType, text: ECHO_VIEW.text, _meta: VIEW_META },
    ]);
    await handle.close();
  });

  it.each([
    ['an unknown URI', 'ui://demo/nope.html'],
    ['the view of a hidden tool', 'ui://demo/traced.html'],
  ])('answers %s with resource-not-found (-32602 naming the uri)', async (_label, uri) => {
    const { client, handle } = await connect(era, { views: VIEWS });
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
    await handle.close();
  });

  it('adds `_meta.ui.resourceUri` to exactly the tools that have a view', async () => {
    const { client, handle } = await connect(era, { views: VIEWS, caller: WITH_TRACE });
    const { tools } = await client.listTools();
    const metas = Object.fromEntries(tools.map((t) => [t.name, t._meta]));
    expect(Object.keys(metas).sort()).toEqual([echoTool.name, recallTool.name, traceOnlyTool.name].sort());
    // Every tool also carries its result size hint; only those with a view name one.
    const hint = { 'anthropic/maxResultSizeChars': 100_000 };
    expect(metas).toEqual({
      [echoTool.name]: { ...VIEWS.toolMetas[echoTool.name], ...hint },
      [traceOnlyTool.name]: { ...VIEWS.toolMetas[traceOnlyTool.name], ...hint },
      [recallTool.name]: hint,
    });
    await handle.close();
  });

  it('answers tools/call of a tool with a view exactly as without views', async () => {
    const args = { name: echoTool.name, arguments: { word: 'view' } };
    const withViews = await connect(era, { views: VIEWS });
    const served = await withViews.client.callTool(args);
    await withViews.handle.close();
    const bare = await connect(era);
    const plain = await bare.client.callTool(args);
    await bare.handle.close();
    expect(served.structuredContent).toMatchObject({ items: [{ word: 'view' }] });
    expect({ content: served.content, structuredContent: served.structuredContent }).toEqual({
      content: plain.content,
      structuredContent: plain.structuredContent,
    });
  });
});

describe('MCP Apps views, a client of SDK 1.x (no Apps support)', () => {
  async function v1Call(views?: McpViews) {
    const served = serve(views ? { views } : {});
    const client = new V1Client({ name: 'v1', version: '0' });
    await client.connect(served.clientSide as never);
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: echoTool.name, arguments: { word: 'v1' } });
    await served.handle.close();
    return { tools, result };
  }

  it('gets the same text and structuredContent for a tool with a view', async () => {
    const withViews = await v1Call(VIEWS);
    const plain = await v1Call();
    expect(withViews.tools.find((t) => t.name === echoTool.name)?._meta).toEqual({
      ...VIEWS.toolMetas[echoTool.name],
      'anthropic/maxResultSizeChars': 100_000,
    });
    expect(withViews.result.structuredContent).toMatchObject({ items: [{ word: 'v1', project: 'prj_a' }] });
    expect(withViews.result.content).toEqual(plain.result.content);
    expect(withViews.result.structuredContent).toEqual(plain.result.structuredContent);
  });
});
