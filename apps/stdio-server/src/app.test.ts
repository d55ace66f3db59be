import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { silentLogger } from '@svc/logger';
import type { McpViews } from '@svc/tool-server';
import { makeExecutor } from '@svc/tool-server/testing';
import { createStdioApp } from './app';

// The stdio app over an in-memory pipe, as the SDK's stdio entry serves a process's stdio: the
// client's opening decides the era (v2 client: 2026-07-28; the 1.32.2 client: 2025-11-25); the
// project is the configured one; a changed tool list reaches the client in the way of its era.

function app(views?: McpViews) {
  const { executor, audit } = makeExecutor();
  const stdio = createStdioApp({
    executor,
    projectId: 'prj_local',
    orgId: null,
    capabilities: () => new Set(),
    localUser: 'local:tester',
    ...(views ? { views } : {}),
    version: '0.0.1',
    logger: silentLogger,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = stdio.serve(serverSide);
  return { stdio, audit, clientSide, handle };
}

/** Resolves once `count` notifications arrived. */
function counter() {
  let seen = 0;
  const waiters: Array<[number, () => void]> = [];
  return {
    bump() {
      seen++;
      for (const [n, resolve] of waiters) if (seen >= n) resolve();
    },
    reached: (n: number) =>
      new Promise<void>((resolve) => {
        if (seen >= n) resolve();
        else waiters.push([n, resolve]);
      }),
  };
}

it('serves a modern (2026-07-28) client: list, call for the configured project, list_changed on its listen subscription', async () => {
  const { stdio, audit, clientSide, handle } = app();
  const client = new Client({ name: 'v2', version: '0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(clientSide);
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['demo.echo']);
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'hi' } });
    expect(result.structuredContent).toMatchObject({ items: [{ word: 'hi', project: 'prj_local' }] });
    expect(audit.entries.at(-1)).toMatchObject({ transport: 'stdio', status: 'ok', tool: 'demo.echo' });
    const changes = counter();
    client.setNotificationHandler('notifications/tools/list_changed', () => changes.bump());
    const subscription = await client.listen({ toolsListChanged: true });
    await stdio.notifyToolListChanged();
    await changes.reached(1);
    await subscription.close();
  } finally {
    await handle.close();
  }
});

it('serves a legacy (2025-11-25) client of SDK 1.32.2: initialize, list, call, unsolicited list_changed', async () => {
  const { stdio, audit, clientSide, handle } = app();
  const client = new V1Client({ name: 'v1', version: '0' });
  // The transport interface is the same shape in both SDK majors.
  await client.connect(clientSide as never);
  try {
    expect(client.getServerVersion()).toEqual({ name: 'observability-stdio', version: '0.0.1' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['demo.echo']);
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'hey' } });
    expect(result.structuredContent).toMatchObject({ items: [{ word: 'hey', project: 'prj_local' }] });
    expect(audit.entries.at(-1)).toMatchObject({ transport: 'stdio', status: 'ok' });
    const changes = counter();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changes.bump());
    await stdio.notifyToolListChanged();
    await changes.reached(1);
  } finally {
    await handle.close();
  }
});

describe.each(['modern', 'legacy'] as const)('MCP Apps views over stdio, %s era', (era) => {
  const echoView = {
    uri: 'ui://test/echo.html',
    name: 'echo',
    title: 'Echo view',
    description: 'Draws the result of demo.echo.',
    mimeType: 'text/html;profile=mcp-app',
    text: '<!doctype html><title>echo</title>',
    _meta: { ui: { csp: { connectDomains: [] } } },
  };
  const views: McpViews = {
    resources: [echoView],
    toolMetas: { 'demo.echo': { ui: { resourceUri: echoView.uri } } },
  };

  it('lists and reads the view, and names it in the tool definition', async () => {
    const { clientSide, handle } = app(views);
    const client = new Client(
      { name: 'v2', version: '0' },
      { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
    );
    await client.connect(clientSide);
    try {
      const { text: _text, ...listed } = echoView;
      expect((await client.listResources()).resources).toEqual([listed]);
      expect((await client.readResource({ uri: echoView.uri })).contents).toEqual([
        { uri: echoView.uri, mimeType: echoView.mimeType, text: echoView.text, _meta: echoView._meta },
      ]);
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t._meta])).toEqual([
        ['demo.echo', { ...views.toolMetas['demo.echo'], 'anthropic/maxResultSizeChars': 100_000 }],
      ]);
    } finally {
      await handle.close();
    }
  });
});
