import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, type Harness, startHarness } from './testing/gateway-harness';
import { ERAS, type Era, MODERN_META, modernHeaders } from './testing/mcp-clients';

// Edges an attack run found: bodies that cannot be decoded, MCP arguments of the wrong kind or
// with reserved keys, a revoked token's open stream, and /healthz reporting a dead dependency.

const ACCEPT = 'application/json, text/event-stream';
let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  token = h.identity.issue().token;
});
afterAll(async () => {
  await h.close();
});

/** Headers of a log.recent call in `era`: a legacy session's, or a modern request's. */
async function mcpCallHeaders(era: Era): Promise<Record<string, string>> {
  return era === 'modern' ? modernHeaders(token, 'tools/call', 'log.recent') : mcpSession();
}

/** The JSON text of a log.recent call's params with `argumentsJson` as sent (modern: its `_meta`). */
const callParamsJson = (era: Era, argumentsJson: string) =>
  `{"name":"log.recent","arguments":${argumentsJson}${era === 'modern' ? `,"_meta":${JSON.stringify(MODERN_META)}` : ''}}`;

async function mcpSession(): Promise<Record<string, string>> {
  const init = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'edges', version: '1' },
      },
    }),
  });
  await init.text();
  return {
    'content-type': 'application/json',
    accept: ACCEPT,
    authorization: `Bearer ${token}`,
    'mcp-session-id': init.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-06-18',
  };
}

/** The JSON-RPC answer of one request (the gateway answers POSTs as a one-event SSE stream). */
async function rpc(headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
  return JSON.parse(data) as Record<string, unknown>;
}

describe('bodies that cannot be decoded', () => {
  const corrupt = Buffer.from('this is not compressed');
  it.each(['gzip', 'deflate', 'br'])('a corrupt %s body is 400 on REST and on /mcp', async (encoding) => {
    for (const path of ['/v1/tools/log.recent', '/mcp']) {
      const res = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': encoding,
          accept: ACCEPT,
          authorization: `Bearer ${token}`,
        },
        body: corrupt,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'invalid_input',
        message: 'The request body could not be read: check its Content-Encoding.',
      });
    }
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a valid %s body is read', async (encoding, compress) => {
    const res = await fetch(`${h.url}/v1/tools/log.recent`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': encoding,
        authorization: `Bearer ${token}`,
      },
      body: compress(Buffer.from('{"limit":1}')),
    });
    expect(res.status).toBe(200);
  });
});

describe('bodies over the limit once inflated, or in a charset JSON is not sent in', () => {
  // The harness's body limit is 1mb: counted on the inflated bytes, not on what was sent.
  const inflated = gzipSync(Buffer.from(`{"limit":1,"note":"${' '.repeat(1024 * 1024 + 1)}"}`));

  it('a gzip body inflating past the limit is 413 on REST and on /mcp', async () => {
    expect(inflated.length).toBeLessThan(16 * 1024);
    for (const path of ['/v1/tools/log.recent', '/mcp']) {
      const res = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          accept: ACCEPT,
          authorization: `Bearer ${token}`,
        },
        body: inflated,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: string }).error).toBe('payload_too_large');
    }
  });

  it.each(['latin1', 'utf-99', 'no-such-charset'])(
    'charset=%s is a 400 on REST and on /mcp',
    async (charset) => {
      for (const path of ['/v1/tools/log.recent', '/mcp']) {
        const res = await fetch(`${h.url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': `application/json; charset=${charset}`,
            accept: ACCEPT,
            authorization: `Bearer ${token}`,
          },
          body: '{"limit":1}',
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_input');
      }
    },
  );
});

describe.each(ERAS)('MCP arguments are validated as REST validates a body, %s era', (era) => {
  it.each([
    ['null', null, 'must be a JSON object, got null'],
    ['an array', [1], 'must be a JSON object, got an array'],
    ['a string', 'limit=1', 'must be a JSON object, got the string "limit=1"'],
  ])('arguments %s: a clean invalid_input result, not a JSON-RPC dump', async (_label, args, message) => {
    const headers = await mcpCallHeaders(era);
    const answer = await rpc(headers, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: JSON.parse(callParamsJson(era, JSON.stringify(args))),
    });
    expect(answer.error).toBeUndefined();
    const result = answer.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toEqual({
      error: 'invalid_input',
      message: `Invalid input for log.recent: ${message}.`,
      details: [{ path: '', message }],
    });
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'refuses the key %s on both bindings alike',
    async (key) => {
      const raw = `{"limit":1,"${key}":{"polluted":true}}`;
      const rest = await fetch(`${h.url}/v1/tools/log.recent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: raw,
      });
      expect(rest.status).toBe(400);
      const restBody = (await rest.json()) as { details: unknown };
      const headers = await mcpCallHeaders(era);
      const res = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers,
        body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":${callParamsJson(era, raw)}}`,
      });
      const text = await res.text();
      const answer = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as {
        result: { isError: boolean; content: { text: string }[] };
      };
      expect(answer.result.isError).toBe(true);
      const mcpBody = JSON.parse(answer.result.content[0]!.text) as { details: unknown };
      expect(mcpBody.details).toEqual(restBody.details);
      expect(restBody.details).toEqual([{ path: key, message: 'is a reserved key and not accepted' }]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});

describe('a revoked token', () => {
  it('loses its MCP sessions and its open GET stream when identity says so', async () => {
    const issued = h.identity.issue();
    const before = h.app.mcpSessionCount();
    const client = new Client({ name: 'edges', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', h.url), {
        requestInit: { headers: { Authorization: `Bearer ${issued.token}` } },
      }),
    );
    try {
      await eventually(
        () => h.getStreams.some((r) => r.headersSent && r.statusCode === 200 && !r.writableEnded),
        'SSE open',
      );
      const open = h.getStreams.filter((r) => !r.writableEnded);
      expect(h.app.mcpSessionCount()).toBe(before + 1);
      h.identity.revoke(issued.tokenId);
      await h.app.applyInvalidation({ kind: 'token', token_id: issued.tokenId });
      await eventually(() => open.every((r) => r.writableEnded || r.destroyed), 'streams closed');
      // The session closes once its stream has (mcp-revoke.test.ts: calls in flight are answered first).
      await eventually(() => h.app.mcpSessionCount() === before, 'session closed');
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe('/healthz', () => {
  it('reports a required dependency that does not answer, and says degraded', async () => {
    const own = await startHarness();
    try {
      await own.monitor.probeNow();
      const up = (await (await fetch(`${own.url}/healthz`)).json()) as {
        status: string;
        backends: Record<string, { reachable: boolean | null }>;
      };
      expect(up.status).toBe('ok');
      expect(up.backends.identity!.reachable).toBe(true);
      await own.identity.close();
      await own.monitor.probeNow();
      const down = (await (await fetch(`${own.url}/healthz`)).json()) as typeof up;
      expect(down.status).toBe('degraded');
      expect(down.backends.identity!.reachable).toBe(false);
      expect(down.backends.core!.reachable).toBe(true);
    } finally {
      await own.close().catch(() => {});
    }
  });
});

describe('JSON-RPC batches on /mcp', () => {
  async function session(version: string, harness = h, bearer = token) {
    const init = await fetch(`${harness.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${bearer}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'batch', version: '1' } },
      }),
    });
    await init.text();
    return {
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${bearer}`,
      'mcp-session-id': init.headers.get('mcp-session-id')!,
    };
  }
  const calls = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: '2.0',
      id: 100 + i,
      method: 'tools/call',
      params: { name: 'log.recent', arguments: { limit: 1 } },
    }));
  const post = (harness: Harness, headers: Record<string, string>, body: unknown) =>
    fetch(`${harness.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });

  it('refuses a batch under protocol 2025-06-18, whether negotiated or sent as a header', async () => {
    const negotiated = await session('2025-06-18');
    for (const headers of [
      negotiated,
      { ...(await session('2025-03-26')), 'mcp-protocol-version': '2025-06-18' },
    ]) {
      const res = await post(h, headers, calls(2));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'JSON-RPC batches are not part of MCP protocol version 2025-06-18.' },
        id: null,
      });
    }
  });

  it('refuses a batch of modern requests (a 2026-07-28 request is one message), calling nothing', async () => {
    const calls = h.core.calls.length;
    const modernCall = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'log.recent', arguments: { limit: 1 }, _meta: MODERN_META },
    });
    const res = await post(h, modernHeaders(token, 'tools/call', 'log.recent'), [
      modernCall(1),
      modernCall(2),
    ]);
    expect(res.status).toBe(400);
    await res.text();
    expect(h.core.calls.length).toBe(calls);
  });

  it('serves a batch under 2025-03-26, caps its size, and counts each call against the rate', async () => {
    const limited = await startHarness({
      limits: {
        perTokenPerMinute: 6,
        perProjectPerMinute: 1000,
        concurrentPerToken: 32,
        concurrentPerProject: 64,
        concurrentPerOrg: 96,
      },
    });
    try {
      const own = limited.identity.issue().token;
      const headers = await session('2025-03-26', limited, own); // 1 of 6
      const served = await post(limited, headers, calls(3)); // 4 of 6
      expect(served.status).toBe(200);
      const answers = (await served.text()).match(/"id":10[0-2]/g) ?? [];
      expect(answers.sort()).toEqual(['"id":100', '"id":101', '"id":102']);
      expect((await post(limited, headers, calls(17))).status).toBe(400);
      const refused = await post(limited, headers, calls(3)); // 7 of 6: refused whole
      expect(refused.status).toBe(429);
      expect(limited.core.calls.filter((c) => c.tool === 'log.recent')).toHaveLength(3);
    } finally {
      await limited.close();
    }
  });
});
