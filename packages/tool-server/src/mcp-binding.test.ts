import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMcpServer, type McpEra, TOOL_LIST_CACHE_HINT } from './mcp-binding';
import { makeExecutor, principal } from './testing/fixtures';

// The binding served as the SDK serves a connection (serveStdio over an in-memory pair): the era
// is the client's choice, `auto` negotiates 2026-07-28, `legacy` opens with initialize.

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** `method`: the one request each server is made for (as the modern HTTP handler makes them). */
function serve(method?: string) {
  const { executor, audit } = makeExecutor();
  const eras: McpEra[] = [];
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    (ctx) => {
      eras.push(ctx.era);
      return createMcpServer({
        executor,
        principal: () => principal(),
        transport: 'mcp',
        serverInfo: { name: 'test', version: '0.0.0' },
        newRequestId: () => 'req-mcp',
        era: ctx.era,
        ...(method !== undefined ? { method } : {}),
      });
    },
    { transport: serverSide },
  );
  return { clientSide, handle, audit, eras };
}

async function connect(era: McpEra) {
  const served = serve();
  const client = new Client(
    { name: 'c', version: '0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  await client.connect(served.clientSide);
  return { client, ...served };
}

describe.each(['modern', 'legacy'] as const)('MCP binding, %s era', (era) => {
  it('is served in the era the client chose', async () => {
    const { client, eras, handle } = await connect(era);
    expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(eras.at(-1)).toBe(era);
    await handle.close();
  });

  it('lists visible tools with input and output schemas and read-only annotations', async () => {
    const { client, handle } = await connect(era);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['demo.echo']);
    const echo = tools[0]!;
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['word'],
    });
    expect(echo.outputSchema).toMatchObject({ type: 'object' });
    expect(echo.title).toBe('Echo');
    // No view: only the result size hint (the tool's own budget, the default here).
    expect(echo._meta).toEqual({ 'anthropic/maxResultSizeChars': 100_000 });
    expect(echo.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    await handle.close();
  });

  it('writes its instructions from the tools this caller can see', async () => {
    const { client, handle } = await connect(era);
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain('Start with the overview tools (demo.echo)');
    expect(instructions).not.toContain('demo.traced');
    await handle.close();
  });

  it('returns structuredContent and its compact form as text', async () => {
    const { client, audit, handle } = await connect(era);
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'hey' } });
    expect(result.structuredContent).toEqual({
      items: [{ word: 'hey', project: 'prj_a' }],
      limit: 5,
      has_more: false,
    });
    expect((result.content as { text: string }[])[0]!.text).toBe(
      'items[1]: word|project\nhey|prj_a\nlimit: 5\nhas_more: false',
    );
    expect(audit.entries[0]).toMatchObject({ transport: 'mcp', status: 'ok' });
    await handle.close();
  });

  it('answers an unknown or hidden tool with JSON-RPC -32602', async () => {
    const { client, handle } = await connect(era);
    await expect(client.callTool({ name: 'demo.nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.callTool({ name: 'demo.traced', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await handle.close();
  });

  it('answers invalid input with an isError result naming the issue', async () => {
    const { client, handle } = await connect(era);
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'x', project_id: 'p' } });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body.error).toBe('invalid_input');
    expect(JSON.stringify(body.details)).toContain('project_id');
    await handle.close();
  });
});

describe('MCP binding, what only one era has', () => {
  it('gives modern clients a private, one-minute cache hint on tools/list; legacy ones none', async () => {
    const modern = await connect('modern');
    const listed = (await modern.client.listTools()) as Record<string, unknown>;
    expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual(TOOL_LIST_CACHE_HINT);
    await modern.handle.close();
    const legacy = await connect('legacy');
    const plain = (await legacy.client.listTools()) as Record<string, unknown>;
    expect(plain.ttlMs).toBeUndefined();
    await legacy.handle.close();
  });

  it('declares logging (deprecated from 2026-07-28) to legacy clients only', async () => {
    const modern = await connect('modern');
    expect(modern.client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    await modern.handle.close();
    const legacy = await connect('legacy');
    expect(legacy.client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    await legacy.handle.close();
  });
});

describe('MCP binding, a client of SDK 1.x (2025-11-25, the clients deployed today)', () => {
  it('initializes, lists and calls in the legacy era', async () => {
    const served = serve();
    const client = new V1Client({ name: 'v1', version: '0' });
    // The transport interface is the same shape in both SDK majors.
    await client.connect(served.clientSide as never);
    expect(client.getServerVersion()).toEqual({ name: 'test', version: '0.0.0' });
    expect(served.eras).toEqual(['legacy']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['demo.echo']);
    const result = await client.callTool({ name: 'demo.echo', arguments: { word: 'v1' } });
    expect(result.structuredContent).toMatchObject({ items: [{ word: 'v1', project: 'prj_a' }] });
    expect(served.audit.entries[0]).toMatchObject({ transport: 'mcp', status: 'ok', tool: 'demo.echo' });
    await expect(client.callTool({ name: 'demo.nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await client.setLoggingLevel('info');
    await served.handle.close();
  });
});

/** Raw JSON-RPC over the in-memory pair: what a client that validates nothing itself can send. */
async function rawExchange(messages: JSONRPCMessage[]): Promise<Map<unknown, Record<string, unknown>>> {
  const served = serve();
  const answers = new Map<unknown, Record<string, unknown>>();
  const expected = messages.filter((m) => 'id' in m).length;
  const done = new Promise<void>((resolve) => {
    served.clientSide.onmessage = (message) => {
      const m = message as Record<string, unknown>;
      if ('id' in m) answers.set(m.id, m);
      if (answers.size === expected) resolve();
    };
  });
  await served.clientSide.start();
  for (const m of messages) await served.clientSide.send(m);
  await done;
  await served.handle.close();
  return answers;
}

describe.each(['modern', 'legacy'] as const)('tools/call arguments as sent, %s era', (era) => {
  const opening: JSONRPCMessage[] =
    era === 'modern'
      ? []
      : [
          {
            jsonrpc: '2.0',
            id: 'init',
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'raw', version: '0' },
            },
          },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
        ];
  const call = (id: number, args: unknown): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'demo.echo',
      arguments: args,
      ...(era === 'modern' ? { _meta: MODERN_META } : {}),
    } as never,
  });

  it.each([
    ['null', null, 'must be a JSON object, got null'],
    ['an array', ['hey'], 'must be a JSON object, got an array'],
    ['a string', 'word=hey', 'must be a JSON object, got the string "word=hey"'],
  ])('arguments %s: the executor words the refusal, not the SDK', async (_label, args, message) => {
    const answers = await rawExchange([...opening, call(1, args)]);
    const result = answers.get(1)!.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toEqual({
      error: 'invalid_input',
      message: `Invalid input for demo.echo: ${message}.`,
      details: [{ path: '', message }],
    });
  });

  it('a `__proto__` key reaches the executor, which refuses it as REST does', async () => {
    const args = JSON.parse('{"word":"hey","__proto__":{"polluted":true}}') as unknown;
    const answers = await rawExchange([...opening, call(2, args)]);
    const result = answers.get(2)!.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text).details).toEqual([
      { path: '__proto__', message: 'is a reserved key and not accepted' },
    ]);
  });
});

describe('a server made for one request', () => {
  // The modern SDK's handler builds one server per request: what that request needs, no more.
  // Which requests a server so made answers, seen from a client (-32601: no handler).
  const answered = async (method: string | undefined) => {
    const served = serve(method);
    const client = new Client({ name: 'c', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(served.clientSide);
    const answers = (request: Promise<unknown>) =>
      request.then(
        () => true,
        (err: unknown) => ((err as { code?: unknown }).code === -32601 ? false : Promise.reject(err)),
      );
    const outcome: Record<string, boolean> = {
      'tools/list': await answers(client.listTools()),
      'tools/call': await answers(client.callTool({ name: 'demo.echo', arguments: { word: 'hey' } })),
    };
    await served.handle.close();
    return Object.keys(outcome).filter((m) => outcome[m]);
  };

  it('answers only the request of its method, and every request when its method is not known', async () => {
    expect(await answered('tools/call')).toEqual(['tools/call']);
    expect(await answered('tools/list')).toEqual(['tools/list']);
    expect(await answered(undefined)).toEqual(['tools/list', 'tools/call']);
  });

  it('writes its instructions only for a request answered with them', async () => {
    // What a client is told when each request it opens with is served by a server made for `method`.
    const instructionsWhenMadeFor = async (method: string | undefined, era: McpEra) => {
      const served = serve(method);
      const mode = era === 'modern' ? 'auto' : 'legacy';
      const client = new Client({ name: 'c', version: '0' }, { versionNegotiation: { mode } });
      await client.connect(served.clientSide);
      const instructions = client.getInstructions();
      await served.handle.close();
      return instructions;
    };
    const everything = await instructionsWhenMadeFor(undefined, 'modern');
    expect(everything).toContain('demo.echo');
    expect(await instructionsWhenMadeFor('server/discover', 'modern')).toBe(everything);
    expect(await instructionsWhenMadeFor('initialize', 'legacy')).toBe(everything);
    expect(await instructionsWhenMadeFor('tools/call', 'modern')).toBeUndefined();
  });
});
