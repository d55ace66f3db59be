import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@svc/sdk-core';
import {
  EXPORTER_HEADER,
  type ExportError,
  formatTraceparent,
  isSampled,
  newSpanId,
  newTraceId,
  templatePath,
} from '@svc/sdk-core';
import { collectingExporter } from '@svc/sdk-core/testing';
import { createExporter, createTracer, expressTracing } from '@svc/sdk-node';
import express from 'express';
import { startTestCore, type TestCore, type TraceNode } from '../testing/core';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';

// An express service instrumented with the SDK, sending to a real core; what it reported is read
// back with the core's own tools (trace.get, log.search).

let core: TestCore;
let tracer: Tracer;
let server: Server;
let base: string;

interface Trace {
  found: boolean;
  span_count: number;
  spans: TraceNode[];
}

beforeAll(async () => {
  core = await startTestCore('sdk_node_tracer');
  tracer = createTracer({
    service: 'orders',
    exporter: { dsn: core.dsn(), flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  const app = express();
  app.use(expressTracing(tracer));
  app.get('/v1/orders/:id', (req, res) => {
    tracer.log('INFO', `order ${req.params.id} read`);
    tracer.inSpan('db.select order', () => undefined, { kind: 'client' });
    res.json({ id: req.params.id });
  });
  app.get('/v1/boom', () => {
    throw new Error('kaput');
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await tracer?.shutdown();
  await core?.close();
});

const traceGet = (trace_id: string) => core.tool<Trace>('trace.get', { trace_id });

/** The server span ends when the answer is handed to the socket: let that happen, then flush. */
async function settle() {
  await new Promise((r) => setImmediate(r));
  await tracer.exporter.flush();
}

describe('an express service with the SDK', () => {
  it('continues an inbound trace: its server span is a child of the caller span, its work nested under it', async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    const res = await fetch(`${base}/v1/orders/12345`, {
      headers: { traceparent: formatTraceparent(caller) },
    });
    expect(res.status).toBe(200);
    await settle();
    const trace = await traceGet(caller.traceId);
    expect(trace).toMatchObject({ found: true, span_count: 2 });
    // The caller's span is not stored: the server span points at it and shows up as an orphan.
    const [serverSpan] = trace.spans;
    expect(serverSpan).toMatchObject({
      parent_span_id: caller.spanId,
      operation: 'GET /v1/orders/:id',
      service: 'orders',
      kind: 'server',
      status: 'ok',
      orphan: true,
      attributes: { 'http.method': 'GET', 'http.status_code': '200' },
    });
    expect(serverSpan!.children).toEqual([
      expect.objectContaining({
        operation: 'db.select order',
        kind: 'client',
        parent_span_id: serverSpan!.span_id,
      }),
    ]);
  });

  it('writes logs inside the span with its trace id (log.search finds them)', async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    await fetch(`${base}/v1/orders/777`, { headers: { traceparent: formatTraceparent(caller) } });
    await settle();
    const { items } = await core.tool<{ items: { message: string; trace_id: string | null }[] }>(
      'log.search',
      {
        search: 'order 777 read',
      },
    );
    expect(items).toEqual([expect.objectContaining({ message: 'order 777 read', trace_id: caller.traceId })]);
  });

  it('starts a root without a traceparent, and ignores an invalid one', async () => {
    const before = tracer.exporter.stats().sent;
    await fetch(`${base}/v1/orders/1`, {
      headers: { traceparent: `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01` },
    });
    await settle();
    expect(tracer.exporter.stats().sent).toBeGreaterThan(before);
    const { items } = await core.tool<{
      items: { trace_id: string; root_orphan: boolean; root_operation: string }[];
    }>('trace.search', { operation: 'GET /v1/orders/:id', limit: 1000 });
    expect(items.some((t) => t.trace_id === 'a'.repeat(32))).toBe(false);
    expect(items.filter((t) => !t.root_orphan).length).toBeGreaterThan(0);
  });

  it('marks a thrown error (a 500) as an error span', async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    const res = await fetch(`${base}/v1/boom`, { headers: { traceparent: formatTraceparent(caller) } });
    expect(res.status).toBe(500);
    await settle();
    expect((await traceGet(caller.traceId)).spans[0]).toMatchObject({
      operation: 'GET /v1/boom',
      status: 'error',
      attributes: { 'http.status_code': '500' },
    });
  });
});

describe('requests the middleware leaves alone', () => {
  it('does not trace an SDK export (it would export its own span forever) nor what `ignore` names', async () => {
    const seen = collectingExporter(core.url);
    const local = createTracer({ service: 'quiet', exporter: seen });
    const app = express();
    app.use(expressTracing(local, { ignore: (req) => req.url === '/healthz' }));
    app.use((_req, res) => void res.send('ok'));
    const s = await new Promise<Server>((resolve) => {
      const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
    });
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    try {
      await fetch(`${url}/ingest/v1/batch`, { method: 'POST', headers: { [EXPORTER_HEADER]: '1' } });
      await fetch(`${url}/healthz`);
      await fetch(`${url}/v1/things/12`);
      await new Promise((r) => setImmediate(r));
      expect(seen.spans.map((span) => span.operation)).toEqual(['GET /v1/things/:id']);
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
});

describe('sampling in the tracer', () => {
  it('keeps a trace by its id alone, and states the rate on the spans it keeps', async () => {
    const sampled = createTracer({ service: 'payments', sampleRate: 0.25, exporter: tracer.exporter });
    let dropped = newTraceId();
    while (isSampled(dropped, 0.25)) dropped = newTraceId();
    let kept = newTraceId();
    while (!isSampled(kept, 0.25)) kept = newTraceId();
    for (const traceId of [dropped, kept]) {
      const parent = { traceId, spanId: newSpanId(), sampled: true };
      sampled.inSpan('payments.authorize', () => undefined, { parent });
    }
    await settle();
    const droppedTrace = await traceGet(dropped);
    const keptTrace = await traceGet(kept);
    expect(droppedTrace.found).toBe(false);
    expect(keptTrace.span_count).toBe(1);
    expect(keptTrace.spans[0]).toMatchObject({ operation: 'payments.authorize', sample_rate: 0.25 });
  });

  it('reports an error span of a dropped trace', async () => {
    const sampled = createTracer({ service: 'payments', sampleRate: 0.25, exporter: tracer.exporter });
    let dropped = newTraceId();
    while (isSampled(dropped, 0.25)) dropped = newTraceId();
    expect(() =>
      sampled.inSpan(
        'payments.capture',
        () => {
          throw new Error('card declined');
        },
        { parent: { traceId: dropped, spanId: newSpanId(), sampled: false } },
      ),
    ).toThrow('card declined');
    await settle();
    expect((await traceGet(dropped)).spans).toEqual([
      expect.objectContaining({
        operation: 'payments.capture',
        status: 'error',
        attributes: { 'error.type': 'Error', 'error.message': 'card declined' },
      }),
    ]);
  });
});

describe('the exporter', () => {
  const span = (traceId: string) => ({
    trace_id: traceId,
    span_id: newSpanId(),
    kind: 'internal' as const,
    status: 'ok' as const,
    operation: 'retry.test',
    start_time: new Date().toISOString(),
    duration_ms: 1,
  });

  it('retries 429 and 5xx with backoff, then delivers', async () => {
    const exporter = createExporter({
      dsn: core.dsn(core.proxy.url),
      retryBaseMs: 5,
      flushIntervalMs: 60_000,
      timeoutMs: EXPORT_TIMEOUT_MS,
    });
    const traceId = newTraceId();
    core.proxy.fail(503, 1);
    exporter.addSpan(span(traceId));
    await exporter.flush();
    core.proxy.fail(429, 2);
    exporter.addSpan(span(traceId));
    await exporter.flush();
    expect(exporter.stats()).toEqual({ sent: 2, dropped: 0, queued: 0 });
    expect((await traceGet(traceId)).span_count).toBe(2);
    await exporter.shutdown();
  });

  it('gives up after its attempts, drops what the core refuses, and bounds its queue; never throws', async () => {
    const errors: ExportError[] = [];
    const exporter = createExporter({
      dsn: core.dsn(core.proxy.url),
      retryBaseMs: 1,
      maxAttempts: 3,
      maxQueue: 2,
      flushIntervalMs: 60_000,
      timeoutMs: EXPORT_TIMEOUT_MS,
      onError: (e) => errors.push(e),
    });
    core.proxy.fail(503, 3);
    exporter.addSpan(span(newTraceId()));
    await exporter.flush();
    // A record the core refuses (no operation): 400, not retried.
    exporter.addSpan({ ...span(newTraceId()), operation: '' });
    await exporter.flush();
    exporter.addSpan(span(newTraceId()));
    exporter.addSpan(span(newTraceId()));
    exporter.addSpan(span(newTraceId()));
    expect(errors.map((e) => e.reason)).toEqual(['gave_up', 'rejected', 'queue_full']);
    expect(errors[1]).toMatchObject({ status: 400, records: 1 });
    await exporter.shutdown();
    expect(exporter.stats()).toEqual({ sent: 2, dropped: 3, queued: 0 });
  });

  it('refuses a malformed DSN at once, with the expected form', () => {
    expect(() => createExporter({ dsn: 'http://localhost:8080' })).toThrow(/<key_id>:<secret>@<host>/);
  });
});

describe('templatePath', () => {
  it.each([
    ['/v1/orders/123/items?x=1', '/v1/orders/:id/items'],
    ['/v1/users/usr_k3vkzzr97hszmn14puzv', '/v1/users/:id'],
    ['/v1/orders/3f2504e0-4f89-11d3-9a0c-0305e82c3301', '/v1/orders/:id'],
    ['/v1/traces/4bf92f3577b34da6a3ce929d0e0e4736', '/v1/traces/:id'],
    ['/v1/search', '/v1/search'],
    ['/v2/healthz', '/v2/healthz'],
  ])('%s -> %s', (url, expected) => {
    expect(templatePath(url)).toBe(expected);
  });
});
