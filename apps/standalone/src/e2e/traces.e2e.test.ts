import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { allTools } from '@svc/tool-catalog';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callBoth, callRest, connectMcp, ingestBatch, newProject, setOrgCapability } from './support';

// The trace tools through the real gateway, identity and core: hidden until the org has vis_trace
// (then exactly like an unknown tool), one answer over REST and MCP once it has, and a trace of
// another project is not found.

let stack: InProcessStack;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const OTHER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const TRACE_NAMES = allTools
  .filter((t) => t.capability === 'vis_trace')
  .map((t) => t.name)
  .sort();
const t0 = Date.now() - 60_000;
const at = (ms: number) => new Date(t0 + ms).toISOString();

const SPANS = [
  {
    span_id: '00f067aa0ba902b7',
    operation: 'GET /checkout',
    service: 'mobile',
    kind: 'client',
    start: 0,
    duration: 900,
  },
  {
    span_id: '00f067aa0ba902b8',
    parent: '00f067aa0ba902b7',
    operation: 'POST /api/checkout',
    service: 'gateway',
    kind: 'server',
    start: 20,
    duration: 850,
  },
  {
    span_id: '00f067aa0ba902b9',
    parent: '00f067aa0ba902b8',
    operation: 'checkout.create',
    service: 'checkout',
    kind: 'server',
    start: 30,
    duration: 800,
    sample_rate: 0.25,
  },
  {
    span_id: '00f067aa0ba902ba',
    parent: '00f067aa0ba902b9',
    operation: 'payments.authorize',
    service: 'payments',
    kind: 'client',
    start: 40,
    duration: 700,
    sample_rate: 0.25,
    status: 'error',
  },
].map((s) => ({
  trace_id: TRACE,
  span_id: s.span_id,
  ...(s.parent ? { parent_span_id: s.parent } : {}),
  kind: s.kind,
  status: s.status ?? 'ok',
  operation: s.operation,
  service: s.service,
  start_time: at(s.start),
  duration_ms: s.duration,
  user_id: 'u_trace',
  ...(s.sample_rate ? { sample_rate: s.sample_rate } : {}),
}));

const setTrace = (enabled: boolean) => setOrgCapability(stack, 'vis_trace', enabled);

const mcpUrl = () => `${stack.urls.gateway}/mcp`;

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'traces_e2e' });
  await stack.ingest({ spans: SPANS });
  const other = await newProject({ url: stack.urls.identity, secret: stack.secret }, 'Other', stack.orgId);
  const res = await ingestBatch(stack.urls.core, other.key, {
    spans: [{ ...SPANS[0], trace_id: OTHER_TRACE, operation: 'OTHER-PROJECT' }],
  });
  expect(res.status).toBe(200);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

describe('trace tools end to end', () => {
  it('without vis_trace: absent from tools/list, 404 over REST, -32602 over MCP', async () => {
    const mcp = await connectMcp(mcpUrl(), bearer(stack.token));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).filter((n) => n.startsWith('trace.'))).toEqual([]);
    for (const name of TRACE_NAMES) {
      const rest = await callRest(stack.urls.gateway, name, {}, bearer(stack.token));
      expect(rest.status).toBe(404);
      expect(rest.body.error).toBe('not_found');
      await expect(mcp.callTool({ name, arguments: {} })).rejects.toMatchObject({ code: -32602 });
    }
    await mcp.close();
  });

  describe('with vis_trace', () => {
    let mcp: Client;
    beforeAll(async () => {
      await setTrace(true);
      mcp = await connectMcp(mcpUrl(), bearer(stack.token));
    });
    afterAll(async () => {
      await mcp?.close();
    });

    const both = (tool: string, args: Record<string, unknown>) =>
      callBoth(stack.urls.gateway, mcp, bearer(stack.token), tool, args);

    it('lists the three trace tools', async () => {
      const { tools } = await mcp.listTools();
      expect(
        tools
          .map((t) => t.name)
          .filter((n) => n.startsWith('trace.'))
          .sort(),
      ).toEqual(TRACE_NAMES);
    });

    it('trace.search finds the trace by user; trace.get nests it; both transports agree', async () => {
      const search = await both('trace.search', { user_id: 'u_trace' });
      expect(search.mcp).toEqual(search.rest);
      expect(search.rest.items).toEqual([
        expect.objectContaining({
          trace_id: TRACE,
          span_count: 4,
          error: true,
          root_operation: 'GET /checkout',
        }),
      ]);
      const get = await both('trace.get', { trace_id: TRACE });
      expect(get.mcp).toEqual(get.rest);
      const path: string[] = [];
      for (let n = (get.rest.spans as Tree[])[0]; n; n = n.children[0])
        path.push(`${n.service}:${n.self_ms}`);
      expect(path).toEqual(['mobile:50', 'gateway:50', 'checkout:100', 'payments:700']);
    });

    it('trace.aggregate restores the sampled spans; the error span counts once', async () => {
      const { rest } = await both('trace.aggregate', {});
      const counts = Object.fromEntries(
        (rest.operations as { operation: string; count: number }[]).map((o) => [o.operation, o.count]),
      );
      expect(counts).toEqual({
        'GET /checkout': 1,
        'POST /api/checkout': 1,
        'checkout.create': 4,
        'payments.authorize': 1,
      });
    });

    it("answers found: false for another project's trace", async () => {
      const rest = await callRest(
        stack.urls.gateway,
        'trace.get',
        { trace_id: OTHER_TRACE },
        bearer(stack.token),
      );
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ found: false, spans: [] });
      expect(rest.text).not.toContain('OTHER-PROJECT');
    });

    it('hides them again on the next call once the capability is off', async () => {
      await setTrace(false);
      const rest = await callRest(stack.urls.gateway, 'trace.get', { trace_id: TRACE }, bearer(stack.token));
      expect(rest.status).toBe(404);
    });
  });
});

interface Tree {
  service: string;
  self_ms: number;
  children: Tree[];
}
