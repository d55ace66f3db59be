import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { SELF_TRACE_MIDDLEWARE } from '@svc/self-trace';
import { logsTools } from '@svc/tools-logs';
import { loadGatewayConfig } from './config';
import { SECRET } from './testing/gateway-harness';
import {
  closeServer,
  type IdentityContractFixture,
  startIdentityContractFixture,
} from './testing/identity-contract-fixture';
import { connectMcp, ERAS } from './testing/mcp-clients';
import { startToolBackendFixture, type ToolBackendFixture } from './testing/tool-backend-fixture';
import { type WiredGateway, wireGateway } from './wiring';

// The gateway traced by itself (SVC_SELF_TRACE_PROJECT), wired from its configuration as main.ts
// does, against contract fixtures of identity and the core over loopback. Off: no middleware, no
// span, and the caller's traceparent goes to the core unchanged. On: the gateway's server span,
// its client spans (introspection, the tool call, the audit write), and the core is told the
// client span as its parent.

const INBOUND = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
const TRACEPARENT = `00-${INBOUND.traceId}-${INBOUND.spanId}-01`;

type SpanRecord = Record<string, unknown> & { span_id: string; parent_span_id?: string; operation: string };

let identity: IdentityContractFixture;
let core: ToolBackendFixture;

beforeAll(async () => {
  identity = await startIdentityContractFixture(SECRET);
  core = await startToolBackendFixture(SECRET, {
    'log.recent': (_project, input) => ({ items: [], limit: input.limit ?? 20, has_more: false }),
  });
});
afterAll(async () => {
  await Promise.all([identity.close(), core.close()]);
});
beforeEach(() => {
  core.calls.length = 0;
  core.traceparents.length = 0;
  core.ingested.length = 0;
});

async function start(
  env: Record<string, string>,
): Promise<{ wired: WiredGateway; url: string; server: Server }> {
  const config = loadGatewayConfig({
    SVC_INTERNAL_SECRET: SECRET,
    SVC_OBSERVABILITY_ENDPOINT: core.url,
    SVC_IDENTITY_INTERNAL_URL: identity.url,
    SVC_TOKEN_CACHE: '0',
    ...env,
  });
  const wired = wireGateway(config, { logger: silentLogger, metrics: createNoopMetrics(), tools: logsTools });
  const server = createServer(wired.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { wired, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(g: { wired: WiredGateway; server: Server }): Promise<void> {
  await g.wired.close();
  await closeServer(g.server);
}

const callRest = (url: string, token: string) =>
  fetch(`${url}/v1/tools/log.recent`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      traceparent: TRACEPARENT,
    },
    body: JSON.stringify({ limit: 1 }),
  });

const layers = (wired: WiredGateway) => wired.app.router.stack.map((l: { name: string }) => l.name);

describe('self-tracing off (no SVC_SELF_TRACE_PROJECT)', () => {
  it('makes no tracer, installs no middleware and passes the caller traceparent on unchanged', async () => {
    const g = await start({});
    try {
      expect(g.wired.tracer).toBeUndefined();
      expect(layers(g.wired)).not.toContain(SELF_TRACE_MIDDLEWARE);
      const res = await callRest(g.url, identity.issue({ projectId: 'proj_a' }).token);
      expect(res.status).toBe(200);
      expect(core.traceparents[0]).toBe(TRACEPARENT);
    } finally {
      await stop(g);
    }
    expect(core.ingested).toEqual([]);
  });
});

describe('self-tracing on', () => {
  let g: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    g = await start({ SVC_SELF_TRACE_PROJECT: 'prj_stack' });
  });
  afterAll(async () => {
    await stop(g);
  });

  const exported = async (): Promise<SpanRecord[]> => {
    await g.wired.tracer!.exporter.flush();
    expect(new Set(core.ingested.map((b) => b.projectId))).toEqual(new Set(['prj_stack']));
    return core.ingested.flatMap((b) => (b.body.spans ?? []) as SpanRecord[]);
  };

  it('reports server -> client spans of a REST call, the core told the tool call client span', async () => {
    expect(layers(g.wired)).toContain(SELF_TRACE_MIDDLEWARE);
    const res = await callRest(g.url, identity.issue({ projectId: 'proj_a' }).token);
    expect(res.status).toBe(200);
    const spans = await exported();
    expect(spans.every((s) => s.service === 'gateway' && s.trace_id === INBOUND.traceId)).toBe(true);
    const server = spans.find((s) => s.kind === 'server')!;
    expect(server).toMatchObject({
      operation: 'POST /v1/tools/log.recent',
      parent_span_id: INBOUND.spanId,
      status: 'ok',
      attributes: expect.objectContaining({ 'http.status_code': '200' }),
    });
    const clients = spans.filter((s) => s.kind === 'client');
    expect(
      clients.map((s) => [s.operation, (s.attributes as Record<string, string>)['peer.service']]).sort(),
    ).toEqual([
      ['POST /internal/v1/audit', 'audit'],
      ['POST /internal/v1/introspect', 'identity'],
      ['POST /internal/v1/projects/proj_a/tools/log.recent', 'core'],
    ]);
    expect(clients.every((s) => s.parent_span_id === server.span_id)).toBe(true);
    const toolCall = clients.find((s) => s.operation.endsWith('/tools/log.recent'))!;
    expect(core.traceparents[0]).toBe(`00-${INBOUND.traceId}-${toolCall.span_id}-01`);
  });

  it.each(ERAS)(
    'names the tool of an MCP tools/call (%s era), and its core call is a child of that request',
    async (era) => {
      core.ingested.length = 0;
      const client = await connectMcp(g.url, identity.issue({ projectId: 'proj_a' }).token, era, {
        headers: { traceparent: TRACEPARENT },
      });
      // A listen stream (modern) or the session's GET stream (legacy) is open during the call.
      await client.onToolListChanged(() => {});
      await client.callTool('log.recent', { limit: 1 });
      await client.close();
      const spans = await exported();
      const call = spans.find((s) => s.operation === 'POST /mcp tools/call log.recent')!;
      expect(call).toMatchObject({ kind: 'server' });
      const coreCall = spans.find((s) => s.operation.endsWith('/tools/log.recent') && s.kind === 'client');
      expect(coreCall?.parent_span_id).toBe(call.span_id);
      const opening = era === 'legacy' ? 'POST /mcp initialize' : 'POST /mcp server/discover';
      expect(spans.some((s) => s.operation === opening)).toBe(true);
      // A stream that carries notifications is not a call: no span as long as the stream.
      expect(spans.filter((s) => s.operation.startsWith('GET /mcp'))).toEqual([]);
      expect(spans.filter((s) => s.operation.includes('subscriptions/listen'))).toEqual([]);
    },
  );

  it('never traces /healthz, and an unknown tool stays :name', async () => {
    core.ingested.length = 0;
    await fetch(`${g.url}/healthz`);
    await fetch(`${g.url}/v1/tools/no.such_tool`, { method: 'POST' });
    const spans = await exported();
    expect(spans.map((s) => s.operation)).toEqual(['POST /v1/tools/:name']);
  });
});
