import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { logsTools } from '@svc/tools-logs';
import request from 'supertest';
import { eventually, type Harness, LOGS, startHarness } from './testing/gateway-harness';
import { controlledProbe, recallProbe } from './testing/test-tools';

const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

const open: Connected[] = [];

async function connect(url: string, token: string): Promise<Connected> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const connected = { client, transport };
  open.push(connected);
  return connected;
}

afterEach(async () => {
  for (const c of open.splice(0)) await c.client.close().catch(() => {});
});

async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected an MCP error');
}

describe('MCP over StreamableHTTP (sessions)', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    token = h.identity.issue({ projectId: 'proj_a' }).token;
  });
  afterAll(async () => {
    await h.close();
  });

  it('lists exactly the visible tools, with no project_id in any schema', async () => {
    const { client } = await connect(h.url, token);
    const { tools } = await client.listTools();
    const expected = [...logsTools.map((t) => t.name), recallProbe.name].sort();
    expect(tools.map((t) => t.name).sort()).toEqual(expected);
    expect(JSON.stringify(tools)).not.toContain('project_id');
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
  });

  it('calls a tool for the token project, with structured content and an mcp audit record', async () => {
    const { client } = await connect(h.url, token);
    const result = await client.callTool({ name: 'log.recent', arguments: { level: 'ERROR' } });
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
    const { client } = await connect(h.url, token);
    const hidden = await mcpError(client.callTool({ name: controlledProbe.name, arguments: {} }));
    const unknown = await mcpError(client.callTool({ name: 'nope.tool', arguments: {} }));
    expect(hidden.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(hidden.message.replace(controlledProbe.name, 'X')).toBe(unknown.message.replace('nope.tool', 'X'));
  });

  it('returns isError for project_id in the input and never calls the backend', async () => {
    const { client } = await connect(h.url, token);
    const before = h.core.calls.length;
    const result = await client.callTool({ name: 'log.recent', arguments: { project_id: 'proj_b' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('invalid_input');
    expect(h.core.calls.length).toBe(before);
  });

  it('binds a session to its token: another valid token gets 404 for it', async () => {
    const { transport } = await connect(h.url, token);
    const sessionId = transport.sessionId!;
    const other = h.identity.issue({ projectId: 'proj_b' }).token;
    const asOther = (t: request.Test) =>
      t.set('Authorization', `Bearer ${other}`).set('Mcp-Session-Id', sessionId);
    expect((await asOther(request(h.url).post('/mcp').set('Accept', ACCEPT).send(LIST))).status).toBe(404);
    expect((await asOther(request(h.url).get('/mcp').set('Accept', 'text/event-stream'))).status).toBe(404);
    expect((await asOther(request(h.url).delete('/mcp'))).status).toBe(404);
    const own = await request(h.url)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Mcp-Session-Id', sessionId)
      .set('Accept', ACCEPT)
      .send(LIST);
    expect(own.status).toBe(200);
  });

  it('ends a session on DELETE', async () => {
    const { transport } = await connect(h.url, token);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const after = await request(h.url)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Mcp-Session-Id', sessionId)
      .set('Accept', ACCEPT)
      .send(LIST);
    expect(after.status).toBe(404);
  });

  it('refuses a request without a session id that is not initialize', async () => {
    const res = await request(h.url)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', ACCEPT)
      .send(LIST);
    expect(res.status).toBe(400);
  });

  it('sends tools/list_changed over the GET SSE stream when the health monitor flips', async () => {
    const { client } = await connect(h.url, token);
    let changes = 0;
    let notified!: () => void;
    const received = new Promise<void>((resolve) => {
      notified = resolve;
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes++;
      notified();
    });
    // The SDK client opens its GET stream after initialization; wait until the gateway answered it.
    await eventually(
      () => h.getStreams.some((r) => r.headersSent && r.statusCode === 200 && !r.writableEnded),
      'SSE open',
    );
    h.recall.healthy = false;
    try {
      await h.monitor.probeNow();
      await received;
      expect(changes).toBeGreaterThanOrEqual(1);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain(recallProbe.name);
    } finally {
      h.recall.healthy = true;
      await h.monitor.probeNow();
    }
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain(recallProbe.name);
  });
});

describe('MCP session limits', () => {
  it('evicts the least recently used idle session of the token at the cap', async () => {
    const h = await startHarness({ sessions: { maxSessionsPerToken: 1 } });
    try {
      const { token } = h.identity.issue();
      const init = () =>
        request(h.url)
          .post('/mcp')
          .set('Authorization', `Bearer ${token}`)
          .set('Accept', ACCEPT)
          .send(INITIALIZE);
      const first = await init();
      expect(first.status).toBe(200);
      const second = await init();
      expect(second.status).toBe(200);
      expect(h.app.mcpSessionCount()).toBe(1);
      const stale = await request(h.url)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Mcp-Session-Id', String(first.headers['mcp-session-id']))
        .set('Accept', ACCEPT)
        .send(LIST);
      expect(stale.status).toBe(404);
    } finally {
      await h.close();
    }
  });

  it('answers 429 when every session of the token at the cap is busy (open SSE stream)', async () => {
    const h = await startHarness({ sessions: { maxSessionsPerToken: 1 } });
    try {
      const { token } = h.identity.issue();
      await connect(h.url, token);
      const second = await request(h.url)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', ACCEPT)
        .send(INITIALIZE);
      expect(second.status).toBe(429);
      expect(second.body.error).toBe('rate_limited');
    } finally {
      for (const c of open.splice(0)) await c.client.close().catch(() => {});
      await h.close();
    }
  });

  it('expires idle sessions', async () => {
    const h = await startHarness({ sessions: { idleMs: 30 } });
    try {
      const { token } = h.identity.issue();
      const init = await request(h.url)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', ACCEPT)
        .send(INITIALIZE);
      expect(init.status).toBe(200);
      const sessionId = String(init.headers['mcp-session-id']);
      expect(h.app.mcpSessionCount()).toBe(1);
      await eventually(() => h.app.mcpSessionCount() === 0, 'idle session expired');
      const later = await request(h.url)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Mcp-Session-Id', sessionId)
        .set('Accept', ACCEPT)
        .send(LIST);
      expect(later.status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describe('MCP stateless mode (SVC_MCP_STATELESS=1)', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ mcpStateless: true });
    token = h.identity.issue().token;
  });
  afterAll(async () => {
    await h.close();
  });

  it('serves initialize, tools/list and tools/call without a session', async () => {
    const { client, transport } = await connect(h.url, token);
    expect(transport.sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('log.recent');
    const result = await client.callTool({ name: 'log.recent', arguments: { limit: 1 } });
    expect((result.structuredContent as { limit: number }).limit).toBe(1);
    expect(h.app.mcpSessionCount()).toBe(0);
  });

  it('answers GET and DELETE with 405', async () => {
    const get = await request(h.url)
      .get('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'text/event-stream');
    expect(get.status).toBe(405);
    const del = await request(h.url).delete('/mcp').set('Authorization', `Bearer ${token}`);
    expect(del.status).toBe(405);
  });
});
