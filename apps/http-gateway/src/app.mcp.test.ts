import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { eventually, type Harness, startHarness } from './testing/gateway-harness';

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

describe('MCP over StreamableHTTP, legacy sessions', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    token = h.identity.issue({ projectId: 'proj_a' }).token;
  });
  afterAll(async () => {
    await h.close();
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
