import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { adminCall, bearer, connectModernMcp, ingestBatch, MODERN_MCP_VERSION, newProject } from './support';

// Auth, isolation and audit of security.e2e.test.ts for 2026-07-28 clients, which have no session
// to bind anything to: every request stands alone, so each one must be checked on its own (real
// identity, real core, the official v2 client and raw requests).

const MARKER = 'okapi-only-in-b';
let stack: InProcessStack;
let mcpUrl: string;
let tokenB: string;

const identityAdmin = () => ({ url: stack.urls.identity, secret: stack.secret });

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'mcp-modern-security' });
  mcpUrl = `${stack.urls.gateway}/mcp`;
  await stack.ingest({
    logs: [{ timestamp: Date.now() - 1000, level: 'INFO', message: 'a line of A', source: 'backend' }],
  });
  const org = (await stack.admin('/internal/v1/admin/orgs', { name: 'Other org' })) as { org_id: string };
  const b = await newProject(identityAdmin(), 'B', org.org_id);
  const res = await ingestBatch(stack.urls.core, b.key, {
    logs: [0, 1].map((i) => ({
      timestamp: Date.now() - i * 1000,
      level: 'ERROR',
      message: `${MARKER} #${i}`,
      source: 'backend',
      user_id: 'user-only-in-b',
    })),
  });
  expect(res.status).toBe(200);
  tokenB = b.token;
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

const messagesOf = (result: { structuredContent?: unknown }) =>
  (result.structuredContent as { items: { message: string }[] }).items.map((i) => i.message);

it("each project's token sees its own data only", async () => {
  const a = await connectModernMcp(mcpUrl, bearer(stack.token), 'a');
  const b = await connectModernMcp(mcpUrl, bearer(tokenB), 'b');
  try {
    expect(messagesOf(await b.callTool({ name: 'log.search', arguments: { search: MARKER } }))).toHaveLength(
      2,
    );
    expect(messagesOf(await a.callTool({ name: 'log.search', arguments: { search: MARKER } }))).toEqual([]);
    const byUser = await a.callTool({ name: 'log.by_user', arguments: { user_id: 'user-only-in-b' } });
    expect(messagesOf(byUser)).toEqual([]);
    expect(messagesOf(await a.callTool({ name: 'log.recent', arguments: { limit: 100 } }))).toEqual([
      'a line of A',
    ]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

it('a project_id in the input is an isError result, an unknown tool JSON-RPC -32602', async () => {
  const client = await connectModernMcp(mcpUrl, bearer(stack.token), 'probe');
  try {
    const m = await client.callTool({ name: 'log.search', arguments: { search: MARKER, project_id: 'x' } });
    expect(m.isError).toBe(true);
    expect(m.structuredContent).toBeUndefined();
    await expect(client.callTool({ name: 'log.recall_trigger', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  } finally {
    await client.close();
  }
});

it('a revoked token is refused on its very next request', async () => {
  const { token, token_id } = (await stack.admin('/internal/v1/admin/tokens', {
    project_id: stack.projectId,
  })) as {
    token: string;
    token_id: string;
  };
  const client = await connectModernMcp(mcpUrl, bearer(token), 'revoked');
  try {
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
    await stack.admin(`/internal/v1/admin/tokens/${token_id}/revoke`, {});
    await expect(client.callTool({ name: 'log.recent', arguments: { limit: 1 } })).rejects.toThrow();
  } finally {
    await client.close().catch(() => undefined);
  }
});

it('audits each modern tool call once (transport mcp), a refused header mismatch not at all', async () => {
  const auditOf = async () =>
    (
      await adminCall<{
        items: { seq: number; tool: string; transport: string; status: string; token_id: string }[];
      }>(identityAdmin(), 'GET', `/internal/v1/audit?project_id=${stack.projectId}&limit=1000`)
    ).items;
  const lastSeq = Math.max(0, ...(await auditOf()).map((r) => r.seq));
  const client = await connectModernMcp(mcpUrl, bearer(stack.token), 'audit');
  await client.callTool({ name: 'log.by_user', arguments: { user_id: 'u-audit' } });
  await client.listTools(); // not a tool call: no record
  await client.close();
  const mismatch = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: bearer(stack.token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_MCP_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'log.recent',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'log.search',
        arguments: { search: 'x' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_MCP_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  expect(mismatch.status).toBe(400);
  expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
  const added = (await auditOf()).filter((r) => r.seq > lastSeq);
  expect(added.map((r) => [r.tool, r.transport, r.status])).toEqual([['log.by_user', 'mcp', 'ok']]);
});
