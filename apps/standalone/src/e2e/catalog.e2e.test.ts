import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { catalogToolsets } from '@svc/tool-catalog';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callRest, connectMcp, connectModernMcp } from './support';

// What a client chooses to load and what it reads, over the whole stack (one spawned stack, a few
// calls): toolsets by query parameter (modern) and by header (legacy), a call outside them refused
// naming its toolset, compact text content beside the exact structuredContent (equal to REST's
// answer), the investigation guides as prompts, and /openapi.json narrowed by the same choice.

let stack: SpawnedStack;
let authorization: string;
const namesOf = (set: string) => (catalogToolsets[set] ?? []).map((t) => t.name);

beforeAll(async () => {
  // The smallest demo: these checks read the catalog and five log lines, never the demo's stories.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  authorization = bearer(stack.ready.token!);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.dispose();
});

describe('toolsets, compact text and guides over the stack', () => {
  it('modern: ?toolsets=crash,apm lists those tools and the guides they can follow', async () => {
    const url = new URL(stack.ready.urls.mcp);
    url.searchParams.set('toolsets', 'crash,apm');
    const mcp: ModernClient = await connectModernMcp(url.href, authorization);
    try {
      expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(
        [...namesOf('crash'), ...namesOf('apm')].sort(),
      );
      expect((await mcp.listPrompts()).prompts.map((p) => p.name)).toEqual(['triage-crash-regression']);
      const guide = await mcp.getPrompt({
        name: 'triage-crash-regression',
        arguments: { release: '2.5.0', previous_release: '2.4.0' },
      });
      expect(JSON.stringify(guide.messages)).toContain(
        '1. release.health {\\"versions\\":\\"2.4.0,2.5.0\\"}',
      );
    } finally {
      await mcp.close();
    }
  });

  it('legacy: X-MCP-Toolsets: logs lists the log tools and refuses crash.stats naming its toolset', async () => {
    const { Client: LegacyClient } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const mcp = new LegacyClient({ name: 'catalog-e2e', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(stack.ready.urls.mcp), {
        requestInit: { headers: { authorization, 'X-MCP-Toolsets': 'logs' } },
      }),
    );
    try {
      expect((await mcp.listTools()).tools.map((t) => t.name)).toEqual(namesOf('logs'));
      await expect(mcp.callTool({ name: 'crash.stats', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("toolset 'crash'"),
      });
    } finally {
      await mcp.close();
    }
  });

  it('both eras: the text content is compact, structuredContent is the REST answer', async () => {
    const legacy: Client = await connectMcp(stack.ready.urls.mcp, authorization);
    const modern = await connectModernMcp(stack.ready.urls.mcp, authorization);
    try {
      const rest = await callRest(stack.ready.urls.gateway, 'log.recent', { limit: 5 }, authorization);
      expect(rest.status).toBe(200);
      for (const mcp of [legacy, modern]) {
        const answer = await mcp.callTool({ name: 'log.recent', arguments: { limit: 5 } });
        // The same answer as REST's (a cursor, were there one, is sealed per call: compared by presence).
        const structured = answer.structuredContent as Record<string, unknown>;
        expect(Object.keys(structured).sort()).toEqual(Object.keys(rest.body).sort());
        expect(structured.items).toEqual(rest.body.items);
        const text = (answer.content as { type: string; text: string }[])[0]!.text;
        const lines = text.split('\n');
        expect(lines[0]).toMatch(/^items\[5\]: \w+(\|\w+)+$/);
        // Every top-level field on a line of its own; nothing indented; one line per item.
        for (const key of Object.keys(rest.body))
          expect(lines.some((l) => l.startsWith(`${key}:`) || l.startsWith(`${key}[`))).toBe(true);
        expect(lines.filter((l) => /^\s/.test(l))).toEqual([]);
        expect(lines).toHaveLength(1 + 5 + Object.keys(rest.body).length - 1);
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it('REST: /openapi.json?toolsets=trace holds the trace tools only; an unknown toolset is a 400', async () => {
    const doc = await fetch(`${stack.ready.urls.gateway}/openapi.json?toolsets=trace`);
    const paths = Object.keys(((await doc.json()) as { paths: Record<string, unknown> }).paths);
    expect(paths.filter((p) => p.startsWith('/v1/tools/')).sort()).toEqual(
      namesOf('trace')
        .map((n) => `/v1/tools/${n}`)
        .sort(),
    );
    const unknown = await fetch(`${stack.ready.urls.gateway}/openapi.json?toolsets=traces`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { details: { known: string[] } }).details.known).toEqual(
      Object.keys(catalogToolsets),
    );
  });
});
