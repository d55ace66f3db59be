import { UNLIST_AFTER_FAILED_PROBES } from '@svc/backend-client';
import { logsTools } from '@svc/tools-logs';
import { eventually, type Harness, LOGS, startHarness } from './testing/gateway-harness';
import { connectMcp, ERAS, type McpTestClient } from './testing/mcp-clients';
import { controlledProbe, recallProbe } from './testing/test-tools';

// What an MCP client gets from /mcp in both protocol eras, with the official clients over real
// HTTP: the v2 client pinned to 2026-07-28 (modern, no session) and the 1.32.2 client (legacy,
// a session). Session-only behaviour: app.mcp.test.ts; modern-only (headers): app.mcp-modern.test.ts.

const open: McpTestClient[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => {});
});

/** The JSON-RPC error a call was refused with (both SDKs throw an error carrying its code). */
async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    const e = err as { code?: unknown; message: string };
    if (typeof e.code === 'number') return { code: e.code, message: e.message };
    throw err;
  }
  throw new Error('expected a JSON-RPC error');
}

describe.each(ERAS)('MCP over StreamableHTTP, %s era', (era) => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    token = h.identity.issue({ projectId: 'proj_a' }).token;
  });
  afterAll(async () => {
    await h.close();
  });
  const connect = async () => {
    const client = await connectMcp(h.url, token, era);
    open.push(client);
    return client;
  };

  it('lists exactly the visible tools, with no project_id in any schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const expected = [...logsTools.map((t) => t.name), recallProbe.name].sort();
    expect(tools.map((t) => t.name).sort()).toEqual(expected);
    expect(JSON.stringify(tools)).not.toContain('project_id');
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
  });

  it('opens no session in the modern era, one per client in the legacy era', async () => {
    const before = h.app.mcpSessionCount();
    const client = await connect();
    await client.listTools();
    expect(h.app.mcpSessionCount()).toBe(before + (era === 'legacy' ? 1 : 0));
  });

  it('calls a tool for the token project, with structured content and an mcp audit record', async () => {
    const client = await connect();
    const result = await client.callTool('log.recent', { level: 'ERROR' });
    const expected = LOGS.filter((l) => l.project_id === 'proj_a' && l.level === 'ERROR').map(
      (l) => l.message,
    );
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { items: Array<{ message: string }> };
    expect(structured.items.map((i) => i.message)).toEqual(expected);
    expect(h.core.calls.at(-1)).toMatchObject({ projectId: 'proj_a', tool: 'log.recent' });
    expect(h.identity.audit.at(-1)).toMatchObject({ tool: 'log.recent', transport: 'mcp', status: 'ok' });
  });

  it('answers hidden and unknown tools with the same JSON-RPC -32602 error', async () => {
    const client = await connect();
    const hidden = await rpcError(client.callTool(controlledProbe.name, {}));
    const unknown = await rpcError(client.callTool('nope.tool', {}));
    expect(hidden.code).toBe(-32602);
    expect(unknown.code).toBe(-32602);
    expect(hidden.message.replace(controlledProbe.name, 'X')).toBe(unknown.message.replace('nope.tool', 'X'));
  });

  it('returns isError for project_id in the input and never calls the backend', async () => {
    const client = await connect();
    const before = h.core.calls.length;
    const result = await client.callTool('log.recent', { project_id: 'proj_b' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('invalid_input');
    expect(h.core.calls.length).toBe(before);
  });

  it('counts its requests by era and method', async () => {
    const client = await connect();
    await client.callTool('log.recent', { limit: 1 });
    const text = await h.metrics.render();
    expect(text).toMatch(
      new RegExp(`svc_gateway_mcp_requests_total\\{era="${era}",method="tools/call"\\} [1-9]`),
    );
  });

  it('sends tools/list_changed when the health monitor flips (modern: listen stream; legacy: GET stream)', async () => {
    const streamsBefore = h.getStreams.length;
    const client = await connect();
    let changes = 0;
    let notified!: () => void;
    const received = new Promise<void>((resolve) => {
      notified = resolve;
    });
    await client.onToolListChanged(() => {
      changes++;
      notified();
    });
    if (era === 'legacy') {
      // The SDK client opens its GET stream after initialization; wait until the gateway answered it.
      await eventually(
        () =>
          h.getStreams
            .slice(streamsBefore)
            .some((r) => r.headersSent && r.statusCode === 200 && !r.writableEnded && !r.destroyed),
        'SSE open',
      );
    } else {
      expect(h.app.mcpListenStreamCount()).toBeGreaterThanOrEqual(1);
    }
    h.recall.healthy = false;
    try {
      for (let i = 0; i < UNLIST_AFTER_FAILED_PROBES; i++) await h.monitor.probeNow();
      await received;
      expect(changes).toBeGreaterThanOrEqual(1);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain(recallProbe.name);
    } finally {
      h.recall.healthy = true;
      await h.monitor.probeNow();
    }
    // A modern client reuses a listed answer for its ttlMs unless told the list changed: the
    // second notification is what makes it ask again.
    await eventually(() => changes >= 2, 'second tools/list_changed');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain(recallProbe.name);
  });
});
