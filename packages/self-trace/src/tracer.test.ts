import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPORTER_HEADER, type SpanRecord } from '@svc/sdk-core';
import { activeSpan, traceFields } from '@svc/sdk-node';
import { createSelfTracer } from './tracer';

// The tracer's exports as the core receives them, on loopback: a stand-in that records what it is
// sent (the real route, with the real core, is tested in apps/observability-core:
// src/tracing/core-spans.test.ts and the standalone's self-trace e2e test).

const SECRET = 'self-trace-internal-secret-0123';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: { spans?: SpanRecord[] };
}

let server: Server;
let url: string;
let status = 200;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw) });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  received.length = 0;
  status = 200;
});

describe('createSelfTracer', () => {
  it('makes nothing when no project is set', () => {
    expect(createSelfTracer({ service: 'gateway', internalSecret: SECRET })).toBeUndefined();
    expect(
      createSelfTracer({ service: 'gateway', project: undefined, coreUrl: url, internalSecret: SECRET }),
    ).toBeUndefined();
  });

  it("posts the service's spans to the core's internal ingest route of the project, with the internal secret", async () => {
    const tracer = createSelfTracer({
      service: 'observability-core',
      project: 'prj_stack a',
      coreUrl: `${url}/`,
      internalSecret: SECRET,
    })!;
    await tracer.inSpan('parent', async () => {
      expect(traceFields()).toEqual({ trace_id: activeSpan()?.traceId, span_id: activeSpan()?.spanId });
      tracer.startSpan('child').end();
    });
    expect(traceFields()).toEqual({});
    await tracer.shutdown();
    expect(tracer.exporter.stats()).toMatchObject({ sent: 2, dropped: 0 });
    const [post] = received;
    expect(post?.url).toBe('/internal/v1/projects/prj_stack%20a/ingest');
    expect(post?.headers['x-internal-secret']).toBe(SECRET);
    // Marked as an export: the core's own middleware never traces it.
    expect(post?.headers[EXPORTER_HEADER]).toBe('1');
    expect(post?.headers['x-svc-key']).toBeUndefined();
    const [child, parent] = post?.body.spans ?? [];
    expect(parent).toMatchObject({ service: 'observability-core', operation: 'parent', kind: 'internal' });
    expect(child).toMatchObject({
      operation: 'child',
      trace_id: parent?.trace_id,
      parent_span_id: parent?.span_id,
    });
  });

  it('keeps the traces the sampling rate keeps, and every error span', async () => {
    const tracer = createSelfTracer({
      service: 'gateway',
      project: 'p',
      coreUrl: url,
      internalSecret: SECRET,
      sampleRate: 0.000001,
    })!;
    for (let i = 0; i < 20; i++) tracer.startSpan('dropped').end();
    const failed = tracer.startSpan('failed');
    failed.setStatus('error');
    failed.end();
    await tracer.shutdown();
    expect(received.flatMap((r) => r.body.spans ?? []).map((s) => s.operation)).toEqual(['failed']);
  });

  it('says once when the core refuses, never throwing into the service', async () => {
    status = 401;
    const warnings: object[] = [];
    const tracer = createSelfTracer({
      service: 'gateway',
      project: 'p',
      coreUrl: url,
      internalSecret: 'a-wrong-internal-secret-000',
      logger: { warn: (fields) => warnings.push(fields) },
    })!;
    tracer.startSpan('one').end();
    await tracer.exporter.flush();
    tracer.startSpan('two').end();
    await tracer.shutdown();
    expect(tracer.exporter.stats()).toMatchObject({ sent: 0, dropped: 2 });
    expect(warnings).toEqual([{ reason: 'rejected', status: 401, records_lost: 1 }]);
  });
});
