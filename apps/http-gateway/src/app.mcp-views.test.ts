import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpViews } from '@svc/tool-server';
import { type Harness, startHarness } from './testing/gateway-harness';
import { MODERN_VERSION, modernBody, modernHeaders, rpcAnswerOf } from './testing/mcp-clients';
import { controlledProbe } from './testing/test-tools';

// MCP Apps views on /mcp: resources/list and resources/read in both eras over real HTTP, the
// 2026-07-28 Mcp-Name header (the resource's URI on resources/read) checked against the body, and
// a view listed and read only while one of its tools is visible to the token.

const view = (name: string, tool: string) => ({
  uri: `ui://test/${name}.html`,
  name,
  title: `The ${name} view`,
  description: `Draws the result of ${tool}.`,
  mimeType: 'text/html;profile=mcp-app',
  text: `<!doctype html><title>${name}</title>`,
  _meta: { ui: { csp: { connectDomains: [] }, prefersBorder: true } },
});
const VIEWS: McpViews = {
  resources: [view('recent', 'log.recent'), view('controlled', controlledProbe.name)],
  toolMetas: {
    'log.recent': { ui: { resourceUri: 'ui://test/recent.html' } },
    [controlledProbe.name]: { ui: { resourceUri: 'ui://test/controlled.html' } },
  },
};
const [RECENT, CONTROLLED] = VIEWS.resources as [(typeof VIEWS.resources)[0], (typeof VIEWS.resources)[0]];

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({}, { views: VIEWS });
  token = h.identity.issue({ projectId: 'proj_a' }).token;
});
afterAll(async () => {
  await h.close();
});

interface ViewClient {
  listResources(): Promise<{ resources: Record<string, unknown>[] }>;
  readResource(params: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>;
  listTools(): Promise<{ tools: { name: string; _meta?: unknown }[] }>;
  close(): Promise<void>;
}

async function connect(era: 'modern' | 'legacy', bearer: string): Promise<ViewClient> {
  const endpoint = new URL('/mcp', h.url);
  const requestInit = { headers: { Authorization: `Bearer ${bearer}` } };
  if (era === 'legacy') {
    const client = new LegacyClient({ name: 'views-test', version: '1' });
    await client.connect(new LegacyTransport(endpoint, { requestInit }));
    return client as unknown as ViewClient;
  }
  const client = new ModernClient(
    { name: 'views-test', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN_VERSION } } },
  );
  await client.connect(new ModernTransport(endpoint, { requestInit }));
  return client as unknown as ViewClient;
}

describe.each(['modern', 'legacy'] as const)('MCP Apps views on /mcp, %s era', (era) => {
  it('lists and reads the views of the visible tools; _meta on exactly those tools', async () => {
    const client = await connect(era, token);
    const { text: _text, ...listed } = RECENT;
    expect((await client.listResources()).resources).toEqual([listed]);
    expect((await client.readResource({ uri: RECENT.uri })).contents).toEqual([
      { uri: RECENT.uri, mimeType: RECENT.mimeType, text: RECENT.text, _meta: RECENT._meta },
    ]);
    const { tools } = await client.listTools();
    // Every tool carries its result size hint; only the tools with a view name one.
    const withView = tools.filter((t) => (t._meta as { ui?: unknown } | undefined)?.ui !== undefined);
    expect(withView).toEqual([
      expect.objectContaining({
        name: 'log.recent',
        _meta: { ...VIEWS.toolMetas['log.recent'], 'anthropic/maxResultSizeChars': 100_000 },
      }),
    ]);
    await client.close();
  });

  it('counts resources/list and resources/read by name in the requests metric', async () => {
    const client = await connect(era, token);
    await client.listResources();
    await client.readResource({ uri: RECENT.uri });
    await client.close();
    const text = await h.metrics.render();
    for (const method of ['resources/list', 'resources/read'])
      expect(text).toMatch(
        new RegExp(`svc_gateway_mcp_requests_total\\{era="${era}",method="${method}"\\} [1-9]`),
      );
  });

  it("answers an unknown URI and a hidden tool's view with resource-not-found", async () => {
    const client = await connect(era, token);
    for (const uri of ['ui://test/nope.html', CONTROLLED.uri])
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('lists and reads a controlled tool’s view once the token’s org enables the capability', async () => {
    h.identity.orgCapabilities.set('org_traced', ['vis_trace']);
    const traced = h.identity.issue({ projectId: 'proj_a', orgId: 'org_traced' }).token;
    const client = await connect(era, traced);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([RECENT.uri, CONTROLLED.uri]);
    expect((await client.readResource({ uri: CONTROLLED.uri })).contents[0]).toMatchObject({
      text: CONTROLLED.text,
    });
    await client.close();
  });
});

describe('resources/read on a modern request: Mcp-Name is the URI', () => {
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${h.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  const read = (uri: string) => modernBody(3, 'resources/read', { uri });

  it('serves a request whose Mcp-Name names the URI read (plain or in the Base64 sentinel)', async () => {
    for (const name of [RECENT.uri, `=?base64?${Buffer.from(RECENT.uri, 'utf8').toString('base64')}?=`]) {
      const res = await post(modernHeaders(token, 'resources/read', name), read(RECENT.uri));
      expect(res.status).toBe(200);
      const answer = rpcAnswerOf(await res.text()) as { result: { contents: { text: string }[] } };
      expect(answer.result.contents[0]!.text).toBe(RECENT.text);
    }
  });

  it.each([
    ['naming another URI', CONTROLLED.uri],
    ['missing', undefined],
  ])('refuses Mcp-Name %s (400, -32020)', async (_label, name) => {
    const res = await post(modernHeaders(token, 'resources/read', name), read(RECENT.uri));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });
});
