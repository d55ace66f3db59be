import { eventually, type Harness, LOGS, startHarness } from './testing/gateway-harness';
import { connectMcp, MODERN_VERSION, modernBody, modernHeaders, rpcAnswerOf } from './testing/mcp-clients';

// What only the 2026-07-28 era has on /mcp: the Mcp-Method/Mcp-Name headers required and checked
// against the body before anything counts or serves the request, no session (not even another
// token's), server/discover, the cache hint on tools/list, traceparent continued.

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  token = h.identity.issue({ projectId: 'proj_a' }).token;
});
afterAll(async () => {
  await h.close();
});

const post = (headers: Record<string, string>, body: unknown) =>
  fetch(`${h.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
const call = (name: string) => modernBody(7, 'tools/call', { name, arguments: { limit: 1 } });

describe('Mcp-Method and Mcp-Name on a modern request', () => {
  it('refuses a header naming one tool while the body calls another: 400, -32020, nothing called or audited', async () => {
    const calls = h.core.calls.length;
    const audited = h.identity.audit.length;
    const res = await post(modernHeaders(token, 'tools/call', 'log.search'), call('log.recent'));
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { id: unknown; error: { code: number; message: string } };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32020);
    expect(answer.error.message).toContain('"log.search"');
    expect(answer.error.message).toContain('"log.recent"');
    expect(h.core.calls.length).toBe(calls);
    expect(h.identity.audit.length).toBe(audited);
  });

  it.each([
    ['Mcp-Method missing', { 'mcp-method': undefined }],
    ['Mcp-Name missing', { 'mcp-name': undefined }],
    ['Mcp-Method naming another method', { 'mcp-method': 'tools/list' }],
    ['Mcp-Name with a broken Base64 sentinel', { 'mcp-name': '=?base64?***?=' }],
  ])('refuses a tools/call with %s (400, -32020)', async (_label, change) => {
    const headers: Record<string, string | undefined> = {
      ...modernHeaders(token, 'tools/call', 'log.recent'),
      ...change,
    };
    const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    const calls = h.core.calls.length;
    const res = await post(sent, call('log.recent'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect(h.core.calls.length).toBe(calls);
  });

  it('answers a call as one JSON body with its Content-Length, not a chunked stream', async () => {
    const res = await post(modernHeaders(token, 'tools/call', 'log.recent'), call('log.recent'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBe(String(body.length));
    const answer = JSON.parse(body.toString('utf8')) as {
      id: number;
      result: { structuredContent: unknown };
    };
    expect(answer.id).toBe(7);
    expect(answer.result.structuredContent).toBeDefined();
  });

  it('refuses a call with plain headers but an invalid envelope: 400, -32602, nothing called or audited', async () => {
    const calls = h.core.calls.length;
    const audited = h.identity.audit.length;
    const body = call('log.recent');
    const res = await post(modernHeaders(token, 'tools/call', 'log.recent'), {
      ...body,
      params: {
        ...body.params,
        _meta: { ...body.params._meta, 'io.modelcontextprotocol/clientCapabilities': 'all' },
      },
    });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { id: unknown; error: { code: number } };
    expect(answer).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(h.core.calls.length).toBe(calls);
    expect(h.identity.audit.length).toBe(audited);
  });

  it('accepts Mcp-Name in the Base64 sentinel form', async () => {
    const encoded = `=?base64?${Buffer.from('log.recent', 'utf8').toString('base64')}?=`;
    const res = await post(modernHeaders(token, 'tools/call', encoded), call('log.recent'));
    expect(res.status).toBe(200);
    const answer = rpcAnswerOf(await res.text()) as { result: { isError?: boolean } };
    expect(answer.result.isError).toBeFalsy();
  });
});

describe('no session in the modern era', () => {
  it("a modern request carrying another token's legacy session id is served for its own token only", async () => {
    const before = h.app.mcpSessionCount();
    const sessionId = (await sessionIdOf(token))!;
    expect(h.app.mcpSessionCount()).toBe(before + 1);
    const other = h.identity.issue({ projectId: 'proj_b' });
    const res = await post(
      { ...modernHeaders(other.token, 'tools/call', 'log.recent'), 'mcp-session-id': sessionId },
      modernBody(8, 'tools/call', { name: 'log.recent', arguments: { limit: 50 } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const answer = rpcAnswerOf(await res.text()) as {
      result: { structuredContent: { items: { message: string }[] } };
    };
    const projB = LOGS.filter((l) => l.project_id === 'proj_b').map((l) => l.message);
    expect(answer.result.structuredContent.items.map((i) => i.message).sort()).toEqual(projB.sort());
    expect(h.core.calls.at(-1)).toMatchObject({ projectId: 'proj_b' });
    expect(h.identity.audit.at(-1)).toMatchObject({ token_id: other.tokenId, project_id: 'proj_b' });
    // The session is still its owner's alone: the owner's next call in it is for proj_a.
    expect(h.app.mcpSessionCount()).toBe(before + 1);
    const own = await post(
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'log.recent', arguments: { limit: 1 } },
      },
    );
    expect(own.status).toBe(200);
    await own.text();
    expect(h.core.calls.at(-1)).toMatchObject({ projectId: 'proj_a' });
  });

  it("server/discover carries the instructions a legacy initialize does, for the caller's tools", async () => {
    const discover = await post(modernHeaders(token, 'server/discover'), modernBody(3, 'server/discover'));
    const found = rpcAnswerOf(await discover.text()) as { result: { instructions?: string } };
    const init = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const initialized = rpcAnswerOf(await init.text()) as { result: { instructions?: string } };
    expect(initialized.result.instructions).toContain('Start with the overview tools (');
    expect(found.result.instructions).toBe(initialized.result.instructions);
  });

  it('server/discover answers the modern version; tools/list carries the private one-minute cache hint', async () => {
    const discover = await post(modernHeaders(token, 'server/discover'), modernBody(1, 'server/discover'));
    expect(discover.status).toBe(200);
    const found = rpcAnswerOf(await discover.text()) as { result: Record<string, unknown> };
    expect(found.result.supportedVersions).toContain(MODERN_VERSION);
    const list = await post(modernHeaders(token, 'tools/list'), modernBody(2, 'tools/list'));
    const listed = rpcAnswerOf(await list.text()) as { result: { ttlMs: number; cacheScope: string } };
    expect({ ttlMs: listed.result.ttlMs, cacheScope: listed.result.cacheScope }).toEqual({
      ttlMs: 60_000,
      cacheScope: 'private',
    });
  });

  it("continues the caller's traceparent to the backend", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await post(
      { ...modernHeaders(token, 'tools/call', 'log.recent'), traceparent },
      call('log.recent'),
    );
    await res.text();
    expect(h.core.traceparents.at(-1)).toBe(traceparent);
  });

  it('a revoked token loses its listen stream', async () => {
    const issued = h.identity.issue();
    const client = await connectMcp(h.url, issued.token, 'modern');
    try {
      const before = h.app.mcpListenStreamCount();
      await client.onToolListChanged(() => {});
      expect(h.app.mcpListenStreamCount()).toBe(before + 1);
      h.identity.revoke(issued.tokenId);
      await h.app.applyInvalidation({ kind: 'token', token_id: issued.tokenId });
      await eventually(() => h.app.mcpListenStreamCount() === before, 'listen stream closed');
    } finally {
      await client.close().catch(() => {});
    }
  });
});

/** The id of a legacy session the token opened (the gateway keeps them; read back by a probe). */
async function sessionIdOf(bearer: string): Promise<string | undefined> {
  const init = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bearer}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.text();
  return init.headers.get('mcp-session-id') ?? undefined;
}

describe('rate limits in the modern era', () => {
  it('count each modern request against the token, with no initialize to pay for', async () => {
    const limited = await startHarness({
      limits: {
        perTokenPerMinute: 2,
        perProjectPerMinute: 1000,
        concurrentPerToken: 32,
        concurrentPerProject: 64,
        concurrentPerOrg: 96,
      },
    });
    try {
      const own = limited.identity.issue().token;
      const send = () =>
        fetch(`${limited.url}/mcp`, {
          method: 'POST',
          headers: modernHeaders(own, 'tools/call', 'log.recent'),
          body: JSON.stringify(call('log.recent')),
        });
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const res = await send();
        await res.text();
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(limited.core.calls.filter((c) => c.tool === 'log.recent')).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });
});
