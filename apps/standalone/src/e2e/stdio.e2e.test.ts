import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { allTools, catalogToolsets, catalogViews } from '@svc/tool-catalog';
import { entryArgs } from '../testing/entries';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  type AnyMcpClient,
  adminCall,
  MCP_ERAS,
  type McpEra,
  MODERN_MCP_VERSION,
  setOrgCapability,
} from './support';

// A real stdio round trip: the stdio server as its own process, spoken to by the official SDK
// clients of both eras over its stdin/stdout (v2 on 2026-07-28, 1.32.2 on 2025-11-25), backed by
// real core and identity services.

let stack: InProcessStack;

function serverParams(env: Record<string, string>) {
  return {
    command: process.execPath,
    args: entryArgs('stdio'),
    env: {
      PATH: process.env.PATH ?? '',
      SVC_MCP_STDIO_TRUSTED_LOCAL: '1',
      SVC_MCP_PROJECT_ID: stack.projectId,
      SVC_INTERNAL_SECRET: stack.secret,
      SVC_OBSERVABILITY_ENDPOINT: stack.urls.core,
      SVC_IDENTITY_INTERNAL_URL: stack.urls.identity,
      SVC_LOG_LEVEL: 'warn',
      ...env,
    },
    stderr: 'pipe' as const,
  };
}

function transport(env: Record<string, string>) {
  return new StdioClientTransport(serverParams(env));
}

/** A client of `era` connected to a stdio server process started with `env`. */
async function connectStdio(era: McpEra, env: Record<string, string>): Promise<AnyMcpClient> {
  if (era === 'legacy') {
    const client = new Client({ name: 'stdio-e2e', version: '1' });
    await client.connect(transport(env));
    return client;
  }
  const client = new ModernClient(
    { name: 'stdio-e2e', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN_MCP_VERSION } } },
  );
  await client.connect(new ModernStdioTransport(serverParams(env)));
  return client;
}

const stdioAudit = async () =>
  (
    await adminCall<{ items: Record<string, unknown>[] }>(
      { url: stack.urls.identity, secret: stack.secret },
      'GET',
      `/internal/v1/audit?project_id=${stack.projectId}&limit=100`,
    )
  ).items.filter((r) => r.transport === 'stdio');

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'stdio', recall: true });
  await stack.ingest({
    logs: [
      {
        timestamp: Date.now() - 1000,
        level: 'WARN',
        message: 'stdio round trip probe',
        source: 'device',
        user_id: 'u1',
      },
      { timestamp: Date.now(), level: 'INFO', message: 'unrelated line', source: 'backend' },
    ],
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

describe('stdio server', () => {
  it.each(MCP_ERAS)(
    'lists and calls tools for the project fixed by env, audited with transport stdio (%s era)',
    async (era) => {
      const before = new Set((await stdioAudit()).map((r) => JSON.stringify(r)));
      const client = await connectStdio(era, { SVC_MCP_ORG_ID: stack.orgId });
      if (era === 'modern')
        expect((client as ModernClient).getNegotiatedProtocolVersion()).toBe(MODERN_MCP_VERSION);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        allTools
          .filter((t) => t.capability === 'base' && t.backend === 'core')
          .map((t) => t.name)
          .sort(),
      );
      const result = await client.callTool({ name: 'log.search', arguments: { search: 'ROUND TRIP' } });
      expect(result.isError).toBeFalsy();
      const items = (result.structuredContent as { items: { message: string; user_id: string }[] }).items;
      expect(items.map((i) => [i.message, i.user_id])).toEqual([['stdio round trip probe', 'u1']]);

      const refused = await client.callTool({
        name: 'log.search',
        arguments: { search: 'x', project_id: 'other' },
      });
      expect(refused.isError).toBe(true);
      await client.close();

      const stdio = (await stdioAudit()).filter((r) => !before.has(JSON.stringify(r)));
      expect(stdio.map((r) => [r.tool, r.status])).toEqual([
        ['log.search', 'ok'],
        ['log.search', 'invalid_input'],
      ]);
      expect(stdio[0]).toMatchObject({ token_id: null, org_id: stack.orgId, project_id: stack.projectId });
      expect(String(stdio[0]!.user_id)).toMatch(/^local:/);
    },
  );

  it.each(MCP_ERAS)('serves the MCP Apps views of the tools it lists (%s era)', async (era) => {
    const client = await connectStdio(era, { SVC_MCP_ORG_ID: stack.orgId });
    try {
      const { tools } = await client.listTools();
      const expected = new Set(
        tools.flatMap((t) => {
          const meta = catalogViews.toolMetas[t.name];
          // Beside its view (if any), every tool declares its result size hint.
          expect(t._meta).toEqual({
            ...meta,
            'anthropic/maxResultSizeChars': t._meta?.['anthropic/maxResultSizeChars'],
          });
          expect(typeof t._meta?.['anthropic/maxResultSizeChars']).toBe('number');
          return meta ? [meta.ui.resourceUri] : [];
        }),
      );
      expect(expected.size).toBeGreaterThan(0);
      const { resources } = await client.listResources();
      // Beside the views: the investigation guides' SKILL.md files (the Skills extension).
      const uris = resources.map((r) => r.uri);
      const views = uris.filter((uri) => uri.startsWith('ui://'));
      const others = uris.filter((uri) => !uri.startsWith('ui://'));
      expect(views.sort()).toEqual([...expected].sort());
      for (const uri of others) expect(uri).toMatch(/^skill:\/\/[a-z-]+\/SKILL\.md$/);
      const uri = [...expected][0]!;
      const read = await client.readResource({ uri });
      expect(read.contents).toEqual([
        expect.objectContaining({
          uri,
          mimeType: 'text/html;profile=mcp-app',
          text: catalogViews.resources.find((r) => r.uri === uri)!.text,
        }),
      ]);
    } finally {
      await client.close();
    }
  });

  it('without SVC_MCP_ORG_ID the base tools still work (controlled ones fail closed)', async () => {
    const client = new Client({ name: 'stdio-e2e', version: '1' });
    await client.connect(transport({}));
    const result = await client.callTool({ name: 'log.recent', arguments: { limit: 1 } });
    expect((result.structuredContent as { items: unknown[] }).items).toHaveLength(1);
    await client.close();
  });

  it('serves the trace tools only with SVC_MCP_ORG_ID of an org that has vis_trace', async () => {
    await setOrgCapability(stack, 'vis_trace', true);
    const traceNames = allTools.filter((t) => t.capability === 'vis_trace').map((t) => t.name);
    const args = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' };

    const unknownOrg = new Client({ name: 'stdio-e2e', version: '1' });
    await unknownOrg.connect(transport({}));
    const hidden = (await unknownOrg.listTools()).tools.map((t) => t.name);
    expect(hidden.filter((n) => traceNames.includes(n))).toEqual([]);
    await expect(unknownOrg.callTool({ name: 'trace.get', arguments: args })).rejects.toMatchObject({
      code: -32602,
    });
    await unknownOrg.close();

    const knownOrg = new Client({ name: 'stdio-e2e', version: '1' });
    await knownOrg.connect(transport({ SVC_MCP_ORG_ID: stack.orgId }));
    const listed = (await knownOrg.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(traceNames));
    const answer = await knownOrg.callTool({ name: 'trace.get', arguments: args });
    expect(answer.structuredContent).toMatchObject({ found: false });
    await knownOrg.close();
  });

  it('lists the recall tools in the first tools/list when SVC_RECALL_ENDPOINT answers, for an org with vis_recall', async () => {
    await setOrgCapability(stack, 'vis_recall', true);
    const recallNames = allTools.filter((t) => t.backend === 'recall').map((t) => t.name);
    const listedRecall = async (env: Record<string, string>) => {
      const client = new Client({ name: 'stdio-e2e', version: '1' });
      await client.connect(transport(env));
      // The first list holds every group that will be there: the server waits for its first
      // probe round before it serves (a client may never act on list_changed).
      const names = (await client.listTools()).tools
        .map((t) => t.name)
        .filter((n) => recallNames.includes(n));
      const audit = names.length ? await client.callTool({ name: 'log.audit', arguments: {} }) : undefined;
      await client.close();
      return { names: names.sort(), audit };
    };
    const withRecall = await listedRecall({
      SVC_MCP_ORG_ID: stack.orgId,
      SVC_RECALL_ENDPOINT: stack.recall!.url,
    });
    expect(withRecall.names).toEqual([...recallNames].sort());
    expect(withRecall.audit?.isError).toBeFalsy();
    expect((await listedRecall({ SVC_MCP_ORG_ID: stack.orgId })).names).toEqual([]);
    expect((await listedRecall({ SVC_RECALL_ENDPOINT: stack.recall!.url })).names).toEqual([]);
  });

  it.each(MCP_ERAS)(
    'serves only the toolsets SVC_MCP_TOOLSETS names, and the guides they hold (%s era)',
    async (era) => {
      const client = await connectStdio(era, { SVC_MCP_TOOLSETS: 'crash,apm' });
      try {
        const chosen = [...catalogToolsets.crash!, ...catalogToolsets.apm!].map((t) => t.name).sort();
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(chosen);
        expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['triage-crash-regression']);
        await expect(client.callTool({ name: 'log.recent', arguments: {} })).rejects.toMatchObject({
          code: -32602,
        });
      } finally {
        await client.close();
      }
    },
  );
});
