import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, type Harness, startHarness } from './testing/gateway-harness';
import { modernBody, modernHeaders } from './testing/mcp-clients';

// Session caps with the real app and real MCP initialize requests: one tenant's sessions can only
// ever push out its own, never another project's (an attack run: 1,050 initializes across 11
// tokens of project A evicted project B's idle session at the instance cap of 1,000).

const ACCEPT = 'application/json, text/event-stream';
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

async function initialize(h: Harness, token: string): Promise<Response> {
  const res = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'caps', version: '1' } },
    }),
  });
  await res.text();
  return res;
}

async function openSession(h: Harness, token: string): Promise<string> {
  const res = await initialize(h, token);
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

/** The status of a tools/list in the session: 200 while it lives, 404 once evicted. */
async function listStatus(h: Harness, token: string, sessionId: string): Promise<number> {
  const res = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(LIST),
  });
  await res.text();
  return res.status;
}

const connected: Client[] = [];
afterEach(async () => {
  for (const c of connected.splice(0)) await c.close().catch(() => {});
});

/** An SDK client: its GET stream keeps its session busy (never evicted, never expired). */
async function busySession(h: Harness, token: string): Promise<void> {
  const streams = h.getStreams.length;
  const client = new Client({ name: 'caps', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', h.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  connected.push(client);
  await eventually(
    () => h.getStreams.slice(streams).some((r) => r.headersSent && r.statusCode === 200),
    'GET stream open',
  );
}

it("at the instance cap, a project's initializes evict only its own oldest idle sessions", async () => {
  const maxSessions = 10;
  const h = await startHarness({ sessions: { maxSessions, maxSessionsPerToken: 5 } });
  try {
    const b = h.identity.issue({ projectId: 'proj_b' }).token;
    const bSession = await openSession(h, b);
    const aTokens = [0, 1, 2].map(() => h.identity.issue({ projectId: 'proj_a' }).token);
    const aSessions: { token: string; id: string }[] = [];
    const initializes = maxSessions + 3;
    for (let i = 0; i < initializes; i++) {
      const token = aTokens[i % aTokens.length]!;
      aSessions.push({ token, id: await openSession(h, token) });
    }
    expect(h.app.mcpSessionCount()).toBe(maxSessions);
    expect(await listStatus(h, b, bSession)).toBe(200);
    // A holds every place but B's: its oldest sessions made way for its newest.
    const aLive = maxSessions - 1;
    const statuses = [];
    for (const s of aSessions) statuses.push(await listStatus(h, s.token, s.id));
    const expected = aSessions.map((_, i) => (i < aSessions.length - aLive ? 404 : 200));
    expect(statuses).toEqual(expected);
  } finally {
    await h.close();
  }
});

it('refuses a new session with 503 and Retry-After when the instance is full of other projects', async () => {
  const maxSessions = 4;
  const h = await startHarness({ sessions: { maxSessions } });
  try {
    const b = h.identity.issue({ projectId: 'proj_b' }).token;
    const bSessions = [];
    for (let i = 0; i < maxSessions; i++) bSessions.push(await openSession(h, b));
    const c = h.identity.issue({ projectId: 'proj_c' }).token;
    const refused = await initialize(h, c);
    expect(refused.status).toBe(503);
    // The first idle session expires after the idle timeout (30 minutes): that is when to retry.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(29 * 60);
    expect(retryAfter).toBeLessThanOrEqual(30 * 60);
    expect(h.app.mcpSessionCount()).toBe(maxSessions);
    for (const id of bSessions) expect(await listStatus(h, b, id)).toBe(200);
  } finally {
    await h.close();
  }
});

it("caps a project's sessions over all its tokens: its own idle one goes, or 429 when all are busy", async () => {
  const h = await startHarness({ sessions: { maxSessionsPerToken: 2, maxSessionsPerProject: 3 } });
  try {
    const b = h.identity.issue({ projectId: 'proj_b' }).token;
    const bSession = await openSession(h, b);
    const [t1, t2] = [0, 1].map(() => h.identity.issue({ projectId: 'proj_a' }).token) as [string, string];
    const first = await openSession(h, t1);
    await openSession(h, t1);
    await openSession(h, t2);
    // The project's fourth: its least recently used idle session (the first) goes.
    await openSession(h, t2);
    expect(await listStatus(h, t1, first)).toBe(404);
    expect(h.app.mcpSessionCount()).toBe(4);

    const busy = await startHarness({ sessions: { maxSessionsPerToken: 2, maxSessionsPerProject: 3 } });
    try {
      const [u1, u2] = [0, 1].map(() => busy.identity.issue({ projectId: 'proj_a' }).token) as [
        string,
        string,
      ];
      await busySession(busy, u1);
      await busySession(busy, u1);
      await busySession(busy, u2);
      const refused = await initialize(busy, u2);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      for (const c of connected.splice(0)) await c.close().catch(() => {});
      await busy.close();
    }
    expect(await listStatus(h, b, bSession)).toBe(200);
  } finally {
    await h.close();
  }
});

it("one org's projects cannot fill the instance: another org's initialize still finds room", async () => {
  // A hostile run: one org's 4 projects x 250 sessions filled the instance's 1,000, and every
  // other tenant's initialize got 503 for half an hour. The org's share is below the instance's.
  const h = await startHarness({
    sessions: { maxSessions: 10, maxSessionsPerToken: 4, maxSessionsPerProject: 4, maxSessionsPerOrg: 6 },
  });
  try {
    const statuses: number[] = [];
    for (const project of ['a1', 'a2', 'a3']) {
      const token = h.identity.issue({ projectId: project, orgId: 'org_a' }).token;
      for (let i = 0; i < 4; i++) statuses.push((await initialize(h, token)).status);
    }
    // a1 takes 4, a2 2 more (the org's 6) and then makes way within itself; a3 has none to give up.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    expect(h.app.mcpSessionCount()).toBe(6);
    const other = h.identity.issue({ projectId: 'b1', orgId: 'org_b' }).token;
    expect((await initialize(h, other)).status).toBe(200);
  } finally {
    await h.close();
  }
});

describe('modern listen streams under the same caps', () => {
  /** A raw subscriptions/listen request, held open; `status` once the gateway answered its headers. */
  async function listen(h: Harness, token: string, into: AbortController[]): Promise<number> {
    const abort = new AbortController();
    into.push(abort);
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: modernHeaders(token, 'subscriptions/listen'),
      body: JSON.stringify(
        modernBody(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      ),
      signal: abort.signal,
    });
    if (res.status !== 200) await res.text();
    return res.status;
  }

  it("a token or project at its cap gets 429; another project's streams and sessions are never closed", async () => {
    const h = await startHarness({
      sessions: { maxSessions: 4, maxSessionsPerToken: 2, maxSessionsPerProject: 3 },
    });
    const held: AbortController[] = [];
    try {
      const b = h.identity.issue({ projectId: 'proj_b' }).token;
      expect(await listen(h, b, held)).toBe(200);
      const [t1, t2] = [0, 1].map(() => h.identity.issue({ projectId: 'proj_a' }).token) as [string, string];
      expect(await listen(h, t1, held)).toBe(200);
      expect(await listen(h, t1, held)).toBe(200);
      expect(await listen(h, t1, held)).toBe(429);
      expect(await listen(h, t2, held)).toBe(200);
      expect(await listen(h, t2, held)).toBe(429);
      expect(h.app.mcpListenStreamCount()).toBe(4);
      // The instance is full of streams in use: a third project is refused with 503, B keeps its own.
      const c = h.identity.issue({ projectId: 'proj_c' }).token;
      expect(await listen(h, c, held)).toBe(503);
      expect(h.app.mcpListenStreamCount()).toBe(4);
    } finally {
      for (const a of held) a.abort();
      await h.close();
    }
  });

  it("one org's projects cannot take every stream: another org's listen finds room", async () => {
    const h = await startHarness({
      sessions: { maxSessions: 6, maxSessionsPerToken: 2, maxSessionsPerProject: 2, maxSessionsPerOrg: 4 },
    });
    const held: AbortController[] = [];
    try {
      const statuses: number[] = [];
      for (const project of ['a1', 'a2', 'a3']) {
        const token = h.identity.issue({ projectId: project, orgId: 'org_a' }).token;
        for (let i = 0; i < 2; i++) statuses.push(await listen(h, token, held));
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      const other = h.identity.issue({ projectId: 'b1', orgId: 'org_b' }).token;
      expect(await listen(h, other, held)).toBe(200);
      expect(h.app.mcpListenStreamCount()).toBe(5);
    } finally {
      for (const a of held) a.abort();
      await h.close();
    }
  });
});
