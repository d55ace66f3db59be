import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@svc/sdk-core';
import { formatTraceparent, newSpanId, newTraceId } from '@svc/sdk-core';
import { createTracer, instrumentHttp, traceRequests } from '@svc/sdk-node';
import { startTestCore, type TestCore, type TraceNode } from '../testing/core';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';

// Two plain node:http services: `front` calls `back` with http.get and http.request. The core must
// show one tree, the client span between the two server spans.

let core: TestCore;
let front: Tracer;
let back: Tracer;
let uninstall: () => void;
let frontUrl: string;
let backUrl: string;
const servers: Server[] = [];

async function listen(listener: http.RequestListener): Promise<string> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function fetchText(url: string, method: 'GET' | 'POST'): Promise<number> {
  return new Promise((resolve, reject) => {
    const done = (res: http.IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    };
    if (method === 'GET') http.get(url, done).on('error', reject);
    else {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'text/plain' } }, done);
      req.on('error', reject);
      req.end('hello');
    }
  });
}

beforeAll(async () => {
  core = await startTestCore('sdk_node_http');
  front = createTracer({
    service: 'front',
    exporter: { dsn: core.dsn(), flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  back = createTracer({ service: 'back', exporter: front.exporter });
  uninstall = instrumentHttp(front);
  backUrl = await listen(
    traceRequests(back, (req, res) => {
      res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
      res.end('ok');
    }),
  );
  frontUrl = await listen(
    traceRequests(front, async (req, res) => {
      const status = await fetchText(`${backUrl}${req.url}`, req.method === 'POST' ? 'POST' : 'GET');
      res.statusCode = status === 200 ? 200 : 502;
      res.end();
    }),
  );
});

afterAll(async () => {
  uninstall?.();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await front?.shutdown();
  await core?.close();
});

async function through(path: string, method: 'GET' | 'POST'): Promise<TraceNode[]> {
  const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
  const res = await fetch(`${frontUrl}${path}`, {
    method,
    headers: { traceparent: formatTraceparent(caller) },
    ...(method === 'POST' ? { body: 'x' } : {}),
  });
  await res.arrayBuffer();
  await new Promise((r) => setImmediate(r));
  await front.exporter.flush();
  return (await core.tool<{ spans: TraceNode[] }>('trace.get', { trace_id: caller.traceId })).spans;
}

describe('node:http client instrumentation', () => {
  it.each(['GET', 'POST'] as const)('%s: server -> client -> server, one tree', async (method) => {
    const [server] = await through('/v1/items/1234', method);
    expect(server).toMatchObject({ service: 'front', kind: 'server', operation: `${method} /v1/items/:id` });
    expect(server!.children).toEqual([
      expect.objectContaining({
        service: 'front',
        kind: 'client',
        operation: `${method} 127.0.0.1/v1/items/:id`,
        status: 'ok',
        children: [expect.objectContaining({ service: 'back', kind: 'server', status: 'ok' })],
      }),
    ]);
  });

  it('marks a 5xx answer as an error on the client span', async () => {
    const [server] = await through('/fail/1', 'GET');
    expect(server!.children[0]).toMatchObject({ kind: 'client', status: 'error' });
  });

  it('leaves requests to the ingest host alone', async () => {
    const before = front.exporter.stats();
    const status = await new Promise<number>((resolve) =>
      http.get(`${core.url}/healthz`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }),
    );
    expect(status).toBe(200);
    await front.exporter.flush();
    expect(front.exporter.stats()).toEqual(before);
  });

  it('puts the originals back', () => {
    const patched = http.request;
    const remove = instrumentHttp(front);
    expect(http.request).not.toBe(patched);
    remove();
    expect(http.request).toBe(patched);
  });
});
