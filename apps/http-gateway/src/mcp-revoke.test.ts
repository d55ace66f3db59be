import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, type Harness, startHarness } from './testing/gateway-harness';
import { connectMcp, modernBody, modernHeaders } from './testing/mcp-clients';

// A token revoked while its MCP session is open, with the official v1 SDK client over real HTTP:
// the session's GET stream ends, a call already in flight still gets its answer (it was
// authorized when it started), and every later call is a 401 with the JSON error body over a
// connection that keeps working, never a socket cut or a call left waiting for an answer.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** Short enough that a call whose answer was dropped fails the test instead of hanging it. */
const CALL_TIMEOUT_MS = 3_000;
const BODY_401 = {
  error: 'unauthorized',
  message: 'A valid bearer token with scope mcp:read bound to a project is required.',
};

/** How a call ended: its result, the HTTP status and body the SDK saw, or another error. */
async function outcomeOf(call: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    return { result: await call };
  } catch (err) {
    if (err instanceof StreamableHTTPError) {
      const body = /Error POSTing to endpoint: (.*)$/s.exec(err.message)?.[1];
      return { status: err.code, body: body ? JSON.parse(body) : err.message };
    }
    const e = err as Error & { cause?: { code?: string } };
    return { error: `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}` };
  }
}

it('keeps the connection usable: the in-flight call is answered, then 401 with its body five times', async () => {
  const issued = h.identity.issue();
  const before = h.app.mcpSessionCount();
  const client = new Client({ name: 'revoke', version: '1' });
  const errors: string[] = [];
  client.onerror = (err) => errors.push(String(err));
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', h.url), {
      requestInit: { headers: { Authorization: `Bearer ${issued.token}` } },
    }),
  );
  try {
    await eventually(
      () =>
        h.getStreams.some((r) => r.headersSent && r.statusCode === 200 && !r.writableEnded && !r.destroyed),
      'SSE open',
    );
    const streams = h.getStreams.filter((r) => !r.writableEnded && !r.destroyed);
    const recallCalls = h.recall.calls.length;
    const inFlight = outcomeOf(
      client.callTool({ name: 'fixture.recall', arguments: { note: 'wait:300' } }, undefined, {
        timeout: CALL_TIMEOUT_MS,
      }),
    );
    await eventually(() => h.recall.calls.length > recallCalls, 'call reached the backend');
    h.identity.revoke(issued.tokenId);
    await h.app.applyInvalidation({ kind: 'token', token_id: issued.tokenId });
    // The GET stream ends at once; the POST in flight is not cut.
    await eventually(() => streams.every((r) => r.writableEnded || r.destroyed), 'GET stream closed');

    const next: Record<string, unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      next.push(
        await outcomeOf(
          client.callTool({ name: 'log.recent', arguments: { limit: 1 } }, undefined, {
            timeout: CALL_TIMEOUT_MS,
          }),
        ),
      );
    }
    expect(next).toEqual(Array.from({ length: 5 }, () => ({ status: 401, body: BODY_401 })));
    expect(await inFlight).toEqual({
      result: expect.objectContaining({
        structuredContent: { served_by: 'recall', project: 'proj_a' },
      }),
    });
    // Once the call in flight has been answered the session is gone.
    await eventually(() => h.app.mcpSessionCount() === before, 'session closed');
    expect(errors.filter((e) => /fetch failed|other side closed|terminated/i.test(e))).toEqual([]);
  } finally {
    await client.close().catch(() => {});
  }
});

it('modern era: the in-flight call is answered, the listen stream ends, then every request is a 401 with its body', async () => {
  const issued = h.identity.issue();
  const client = await connectMcp(h.url, issued.token, 'modern');
  try {
    const streamsBefore = h.app.mcpListenStreamCount();
    await client.onToolListChanged(() => {});
    expect(h.app.mcpListenStreamCount()).toBe(streamsBefore + 1);
    const recallCalls = h.recall.calls.length;
    const inFlight = outcomeOf(client.callTool('fixture.recall', { note: 'wait:300' }));
    await eventually(() => h.recall.calls.length > recallCalls, 'call reached the backend');
    h.identity.revoke(issued.tokenId);
    await h.app.applyInvalidation({ kind: 'token', token_id: issued.tokenId });
    await eventually(() => h.app.mcpListenStreamCount() === streamsBefore, 'listen stream closed');
    const next: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: modernHeaders(issued.token, 'tools/call', 'log.recent'),
        body: JSON.stringify(modernBody(i, 'tools/call', { name: 'log.recent', arguments: { limit: 1 } })),
      });
      expect(await res.json()).toEqual(BODY_401);
      next.push(res.status);
    }
    expect(next).toEqual([401, 401, 401, 401, 401]);
    expect(await inFlight).toEqual({
      result: expect.objectContaining({ structuredContent: { served_by: 'recall', project: 'proj_a' } }),
    });
  } finally {
    await client.close().catch(() => {});
  }
});
