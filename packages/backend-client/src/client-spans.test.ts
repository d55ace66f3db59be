import { NotFoundError } from '@svc/errors';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { parseTraceparent, type Tracer } from '@svc/sdk-core';
import { collectingExporter } from '@svc/sdk-core/testing';
import { createSelfTracer, runInSpan } from '@svc/self-trace';
import { type BackendClient, createBackendClient } from './backend-client';
import { json, type StubBackend, startStubBackend } from './testing/stub-backend';

// With the service's own tracer (self-tracing on), every attempt is a client span and the
// traceparent sent points at it; without one, nothing changes (backend-client.test.ts).

const SECRET = 'internal-secret-for-tests-0123456789';
const INBOUND = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let stub: StubBackend;
let exporter: ReturnType<typeof collectingExporter>;
let tracer: Tracer;
const clients: BackendClient[] = [];

function client(options: { traced?: boolean; retryPosts?: boolean } = {}): BackendClient {
  const c = createBackendClient({
    name: 'core',
    baseUrl: stub.url,
    internalSecret: SECRET,
    timeoutMs: 2000,
    metrics: createNoopMetrics(),
    logger: silentLogger,
    ...(options.retryPosts ? { retryPosts: true } : {}),
    ...(options.traced === false ? {} : { tracer }),
  });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  stub = await startStubBackend();
  exporter = collectingExporter();
  tracer = createSelfTracer({ service: 'gateway', project: 'p', internalSecret: SECRET, exporter })!;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await stub.close();
});

describe('client spans', () => {
  it('makes a client span, child of the active server span, and sends a traceparent pointing at it', async () => {
    stub.handle = json(200, { ok: true });
    const server = tracer.startSpan('POST /v1/tools/:name', {
      kind: 'server',
      parent: parseTraceparent(INBOUND),
    });
    await runInSpan(server.context, () =>
      client().asToolCaller().callTool('p1', 'log.search', {}, { requestId: 'r', traceparent: INBOUND }),
    );
    server.end();
    const [span, serverRecord] = exporter.spans;
    expect(span).toMatchObject({
      kind: 'client',
      status: 'ok',
      service: 'gateway',
      operation: 'POST /internal/v1/projects/p1/tools/log.search',
      trace_id: server.context.traceId,
      parent_span_id: server.context.spanId,
      attributes: { 'peer.service': 'core', 'http.method': 'POST' },
    });
    expect(serverRecord?.parent_span_id).toBe('00f067aa0ba902b7');
    // The core's server span will be the client span's child: gateway server -> client -> core.
    const sent = parseTraceparent(String(stub.seen[0]?.headers.traceparent));
    expect(sent).toEqual({ traceId: server.context.traceId, spanId: span?.span_id, sampled: true });
  });

  it("continues the caller's traceparent when no span is active, else starts a root", async () => {
    const c = client();
    await c.getJson('/x', { requestId: 'r', traceparent: INBOUND });
    await c.getJson('/x', { requestId: 'r' });
    const [continued, root] = exporter.spans;
    expect(continued).toMatchObject({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      parent_span_id: '00f067aa0ba902b7',
    });
    expect(root?.parent_span_id).toBeUndefined();
    expect(parseTraceparent(String(stub.seen[1]?.headers.traceparent))?.spanId).toBe(root?.span_id);
  });

  it('makes one span per attempt, each sent with its own traceparent', async () => {
    let n = 0;
    stub.handle = (req, res) => (++n === 1 ? json(503, {}) : json(200, { n }))(req, res);
    await client({ retryPosts: true }).postJson('/y', {}, { requestId: 'r' });
    expect(exporter.spans.map((s) => [s.status, s.attributes?.retry, s.attributes?.outcome])).toEqual([
      ['error', undefined, 'backend_unavailable'],
      ['ok', '1', undefined],
    ]);
    const sent = stub.seen.map((s) => parseTraceparent(String(s.headers.traceparent))?.spanId);
    expect(sent).toEqual(exporter.spans.map((s) => s.span_id));
  });

  it('records a mapped error without the backend text', async () => {
    stub.handle = json(404, { error: 'not_found', message: 'secret backend detail' });
    await expect(client().getJson('/z', { requestId: 'r' })).rejects.toBeInstanceOf(NotFoundError);
    const [span] = exporter.spans;
    expect(span?.status).toBe('error');
    expect(span?.attributes?.['error.type']).toBe('NotFoundError');
    expect(JSON.stringify(span)).not.toContain('secret backend detail');
  });

  it('makes no span for an untraced call (health probes) and passes the inbound traceparent on', async () => {
    await client().getJson('/healthz', { requestId: 'r', traceparent: INBOUND, untraced: true });
    expect(exporter.spans).toEqual([]);
    expect(stub.seen[0]?.headers.traceparent).toBe(INBOUND);
  });

  it('without a tracer, makes nothing and passes the inbound traceparent on unchanged', async () => {
    const server = tracer.startSpan('server', { kind: 'server' });
    await runInSpan(server.context, () =>
      client({ traced: false }).getJson('/x', { requestId: 'r', traceparent: INBOUND }),
    );
    expect(exporter.spans).toEqual([]);
    expect(stub.seen[0]?.headers.traceparent).toBe(INBOUND);
  });
});
