import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callRest, setOrgCapability } from './support';

// The stack traced by itself (SVC_SELF_TRACE_PROJECT): a tool called through the real gateway,
// identity and core, then found again with trace.search and read with trace.get in the stack's
// own project, through the same gateway. "Why was that tool call slow?" on the stack itself.

interface TraceSpan {
  span_id: string;
  parent_span_id: string | null;
  operation: string;
  service: string;
  kind: string;
  status: string;
  duration_ms: number;
  attributes: Record<string, string>;
  children?: TraceSpan[];
}

let stack: InProcessStack;
const at = (ms: number) => new Date(Date.now() - 60_000 + ms).toISOString();

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'self_trace_e2e', selfTrace: true });
  // trace.* need vis_trace; the stack project is in the test org.
  await setOrgCapability(stack, 'vis_trace', true);
  await stack.ingest({
    logs: [1, 2, 3].map((n) => ({
      timestamp: at(n),
      level: 'INFO',
      message: `hello ${n}`,
      source: 'backend',
    })),
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

/** Every span of a trace.get answer, its tree flattened. */
function flatten(spans: TraceSpan[]): TraceSpan[] {
  return spans.flatMap((s) => [s, ...flatten(s.children ?? [])]);
}

describe('the stack traced by itself', () => {
  it('shows a tool call as gateway server -> gateway client -> core server -> tool -> queries', async () => {
    const self = stack.selfTrace!;
    const call = await callRest(stack.urls.gateway, 'log.recent', { limit: 2 }, bearer(stack.token));
    expect(call.status).toBe(200);
    expect((call.body.items as unknown[]).length).toBe(2);
    await self.flush();

    // Found as a user would: the slow calls of one tool, then the trace of one of them.
    const found = await callRest(
      stack.urls.gateway,
      'trace.search',
      { operation: 'POST /v1/tools/log.recent' },
      bearer(self.token),
    );
    expect(found.status).toBe(200);
    const items = found.body.items as { trace_id: string; root_service: string; services: string[] }[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ root_service: 'gateway' });
    expect(items[0]!.services.sort()).toEqual(['gateway', 'identity', 'observability-core']);

    const got = await callRest(
      stack.urls.gateway,
      'trace.get',
      { trace_id: items[0]!.trace_id },
      bearer(self.token),
    );
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ found: true, error: false });
    const roots = got.body.spans as TraceSpan[];
    expect(roots).toHaveLength(1);
    const spans = flatten(roots);
    const one = (predicate: (s: TraceSpan) => boolean, what: string) => {
      const matching = spans.filter(predicate);
      if (matching.length !== 1) throw new Error(`${what}: ${matching.length} spans`);
      return matching[0]!;
    };

    const gatewayServer = roots[0]!;
    expect(gatewayServer).toMatchObject({
      service: 'gateway',
      kind: 'server',
      operation: 'POST /v1/tools/log.recent',
      status: 'ok',
      parent_span_id: null,
    });
    const toolCall = one(
      (s) => s.service === 'gateway' && s.kind === 'client' && s.operation.endsWith('/tools/log.recent'),
      'the gateway client span of the tool call',
    );
    expect(toolCall.parent_span_id).toBe(gatewayServer.span_id);
    expect(toolCall.attributes['peer.service']).toBe('core');

    const coreServer = one((s) => s.service === 'observability-core' && s.kind === 'server', 'core server');
    expect(coreServer).toMatchObject({
      operation: 'POST /internal/v1/projects/:project_id/tools/:tool',
      parent_span_id: toolCall.span_id,
    });
    const tool = one((s) => s.operation === 'tool log.recent', 'the tool span');
    expect(tool).toMatchObject({
      service: 'observability-core',
      kind: 'internal',
      parent_span_id: coreServer.span_id,
    });
    expect(Number(tool.attributes['scheduler.wait_ms'])).toBeGreaterThanOrEqual(0);

    const queries = spans.filter((s) => s.parent_span_id === tool.span_id);
    expect(queries.length).toBeGreaterThanOrEqual(1);
    for (const q of queries) {
      expect(q).toMatchObject({ service: 'observability-core', kind: 'client', operation: 'SELECT logs' });
      expect(q.attributes['db.system']).toBe('clickhouse');
      const waited = Number(q.attributes['db.queue_wait_ms']);
      const ran = Number(q.attributes['db.run_ms']);
      expect(waited).toBeGreaterThanOrEqual(0);
      expect(ran).toBeGreaterThan(0);
      // What "why was it slow" reads: the queue in front of chDB, then the run, within the span.
      expect(waited + ran).toBeLessThanOrEqual(q.duration_ms + 1);
    }
    // The nesting holds in time too: each child within its parent.
    expect(tool.duration_ms).toBeLessThanOrEqual(coreServer.duration_ms);
    expect(coreServer.duration_ms).toBeLessThanOrEqual(toolCall.duration_ms);
    expect(toolCall.duration_ms).toBeLessThanOrEqual(gatewayServer.duration_ms);

    // The token was checked with identity: the gateway's introspection client span, and identity's
    // server span under it. The audit write is there too.
    const introspection = one(
      (s) => s.service === 'gateway' && s.operation === 'POST /internal/v1/introspect',
      'the introspection client span',
    );
    expect(introspection).toMatchObject({ kind: 'client', parent_span_id: gatewayServer.span_id });
    expect(introspection.attributes['peer.service']).toBe('identity');
    const identityServer = one(
      (s) =>
        s.service === 'identity' && s.kind === 'server' && s.operation === 'POST /internal/v1/introspect',
      "identity's server span",
    );
    expect(identityServer.parent_span_id).toBe(introspection.span_id);
    const audit = one(
      (s) => s.operation === 'POST /internal/v1/audit' && s.kind === 'client',
      'the audit write',
    );
    expect(audit.parent_span_id).toBe(gatewayServer.span_id);
  });

  it("keeps the stack's spans in its own project: the tool's project has none of them", async () => {
    const { body } = await callRest(
      stack.urls.gateway,
      'trace.search',
      { operation: 'POST /v1/tools/log.recent' },
      bearer(stack.token),
    );
    expect(body.items).toEqual([]);
  });
});
