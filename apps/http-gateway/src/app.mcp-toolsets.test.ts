import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineGuide } from '@svc/tool-kit';
import { Toolsets } from '@svc/tool-server';
import { logsTools } from '@svc/tools-logs';
import { type Harness, LOGS, startHarness } from './testing/gateway-harness';
import { connectMcp, ERAS, modernBody, modernHeaders, rpcAnswerOf } from './testing/mcp-clients';
import { controlledProbe, recallProbe } from './testing/test-tools';

// Toolsets a client chooses (`?toolsets=`, `X-MCP-Toolsets`), compact text content and guides as
// prompts on /mcp, in both eras over real HTTP.

const TOOLSETS = new Toolsets({ logs: logsTools, fixtures: [controlledProbe, recallProbe] });
const GUIDE = defineGuide({
  name: 'read-recent-logs',
  title: 'Read recent logs',
  description: 'The newest lines at one level.',
  arguments: [{ name: 'level', description: 'A level.', required: true }],
  steps: [{ tool: 'log.recent', args: { level: '{level}' }, lookFor: 'Lines at {level}.' }],
});

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({}, { toolsets: TOOLSETS, guides: [GUIDE] });
  token = h.identity.issue({ projectId: 'proj_a' }).token;
});
afterAll(async () => {
  await h.close();
});

const logNames = logsTools.map((t) => t.name);

async function rawModern(method: string, params: Record<string, unknown>, query = '', headers = {}) {
  const res = await fetch(new URL(`/mcp${query}`, h.url), {
    method: 'POST',
    headers: { ...modernHeaders(token, method, params.name as string | undefined), ...headers },
    body: JSON.stringify(modernBody(1, method, params)),
  });
  return { status: res.status, text: await res.text() };
}

describe.each(ERAS)('toolsets on /mcp, %s era', (era) => {
  it('lists only the chosen toolsets (header) and refuses a call outside them naming its toolset', async () => {
    const client = await connectMcp(h.url, token, era, { headers: { 'X-MCP-Toolsets': 'logs' } });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(logNames);
    await expect(client.callTool('fixture.recall', {})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("in the toolset 'fixtures'"),
    });
    await client.close();
  });

  it('lists the full catalog without a choice, and answers compact text beside exact structuredContent', async () => {
    const client = await connectMcp(h.url, token, era);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...logNames, 'fixture.recall']);
    const answer = await client.callTool('log.recent', { limit: 2 });
    const expected = LOGS.filter((l) => l.project_id === 'proj_a').sort((a, b) =>
      b.timestamp.localeCompare(a.timestamp),
    );
    expect((answer.structuredContent as { items: unknown[] }).items).toHaveLength(2);
    const text = (answer.content as { text: string }[])[0]!.text;
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^items\[2\]: timestamp\|/);
    expect(lines[1]).toContain(expected[0]!.message);
    expect(lines.slice(3)).toEqual(['limit: 2', 'has_more: true']);
    expect(text).not.toMatch(/^ /m);
    await client.close();
  });
});

describe('toolsets on /mcp, chosen by the query parameter', () => {
  it('shrinks a modern tools/list', async () => {
    const { status, text } = await rawModern('tools/list', {}, '?toolsets=fixtures');
    expect(status).toBe(200);
    const tools = (rpcAnswerOf(text).result as { tools: { name: string }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(['fixture.recall']);
  });

  it('refuses an unknown toolset with 400 naming the known ones', async () => {
    const { status, text } = await rawModern('tools/list', {}, '?toolsets=logs,crashes');
    expect(status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({
      error: 'invalid_input',
      message: "Unknown toolset 'crashes': choose among logs, fixtures.",
      details: { unknown: ['crashes'], known: ['logs', 'fixtures'] },
    });
  });
});

describe('toolsets on /openapi.json', () => {
  it('narrows the paths to the chosen toolsets, and refuses an unknown one', async () => {
    const paths = async (query: string) => {
      const res = await fetch(new URL(`/openapi.json${query}`, h.url));
      return { status: res.status, body: (await res.json()) as { paths?: Record<string, unknown> } };
    };
    const all = await paths('');
    expect(Object.keys(all.body.paths ?? {})).toContain('/v1/tools/log.recent');
    const fixtures = await paths('?toolsets=fixtures');
    expect(Object.keys(fixtures.body.paths ?? {}).filter((p) => p.startsWith('/v1/tools/'))).toEqual([
      '/v1/tools/fixture.controlled',
      '/v1/tools/fixture.recall',
    ]);
    expect((await paths('?toolsets=nope')).status).toBe(400);
  });
});

describe('guides as prompts on /mcp', () => {
  it('lists and renders a guide for a modern request', async () => {
    const list = rpcAnswerOf((await rawModern('prompts/list', {})).text);
    expect((list.result as { prompts: { name: string }[] }).prompts.map((p) => p.name)).toEqual([GUIDE.name]);
    const got = rpcAnswerOf(
      (await rawModern('prompts/get', { name: GUIDE.name, arguments: { level: 'ERROR' } })).text,
    );
    expect(JSON.stringify(got.result)).toContain('1. log.recent {\\"level\\":\\"ERROR\\"}');
  });

  it('lists and renders a guide in a legacy session, and hides it when its tools are not chosen', async () => {
    const connect = async (headers: Record<string, string>) => {
      const client = new LegacyClient({ name: 'prompts-test', version: '1' });
      const requestInit = { headers: { Authorization: `Bearer ${token}`, ...headers } };
      await client.connect(new LegacyTransport(new URL('/mcp', h.url), { requestInit }));
      return client;
    };
    const all = await connect({});
    expect((await all.listPrompts()).prompts.map((p) => p.name)).toEqual([GUIDE.name]);
    const got = await all.getPrompt({ name: GUIDE.name, arguments: { level: 'WARN' } });
    expect(JSON.stringify(got.messages)).toContain('Lines at WARN.');
    await all.close();
    const fixturesOnly = await connect({ 'X-MCP-Toolsets': 'fixtures' });
    expect((await fixturesOnly.listPrompts()).prompts).toEqual([]);
    await fixturesOnly.close();
  });
});
