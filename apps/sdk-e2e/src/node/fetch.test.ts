import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@svc/sdk-core';
import { formatTraceparent, newSpanId, newTraceId } from '@svc/sdk-core';
import { createTracer, expressTracing, instrumentFetch } from '@svc/sdk-node';
import express from 'express';
import { startTestCore, type TestCore, type TraceNode } from '../testing/core';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';

// Two express services with the SDK: `shop` calls `stock` with fetch inside a request. The core
// must show one tree: shop's server span -> its client span -> stock's server span.

let core: TestCore;
let shop: Tracer;
let stock: Tracer;
let uninstall: () => void;
const servers: Server[] = [];

async function serve(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let shopUrl: string;
let stockUrl: string;

beforeAll(async () => {
  core = await startTestCore('sdk_node_fetch');
  shop = createTracer({
    service: 'shop',
    exporter: { dsn: core.dsn(), flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  // One process, two services: stock reports through shop's exporter, under its own name.
  stock = createTracer({ service: 'stock', exporter: shop.exporter });
  uninstall = instrumentFetch(shop);
  const stockApp = express();
  stockApp.use(expressTracing(stock));
  stockApp.get('/v1/stock/:sku', (req, res) => {
    res.status(req.params.sku === 'broken' ? 503 : 200).json({ sku: req.params.sku, left: 3 });
  });
  stockUrl = await serve(stockApp);
  const shopApp = express();
  shopApp.use(expressTracing(shop));
  shopApp.get('/v1/products/:sku', async (req, res) => {
    const answer = await fetch(`${stockUrl}/v1/stock/${req.params.sku}`);
    res.status(answer.ok ? 200 : 502).json({ stock: await answer.json() });
  });
  shopUrl = await serve(shopApp);
});

afterAll(async () => {
  uninstall?.();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await shop?.shutdown();
  await core?.close();
});

async function call(path: string): Promise<{ status: number; traceId: string }> {
  const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
  const res = await fetch(`${shopUrl}${path}`, { headers: { traceparent: formatTraceparent(caller) } });
  await res.arrayBuffer();
  await new Promise((r) => setImmediate(r));
  await shop.exporter.flush();
  return { status: res.status, traceId: caller.traceId };
}

const flat = (nodes: TraceNode[]): TraceNode[] => nodes.flatMap((n) => [n, ...flat(n.children)]);

describe('fetch instrumentation', () => {
  it('puts the downstream service in the same trace, under the client span that called it', async () => {
    const { status, traceId } = await call('/v1/products/sku-42');
    expect(status).toBe(200);
    const trace = await core.tool<{ span_count: number; spans: TraceNode[] }>('trace.get', {
      trace_id: traceId,
    });
    expect(trace.span_count).toBe(3);
    const [shopServer] = trace.spans;
    expect(shopServer).toMatchObject({ service: 'shop', kind: 'server', operation: 'GET /v1/products/:sku' });
    const [client] = shopServer!.children;
    expect(client).toMatchObject({
      service: 'shop',
      kind: 'client',
      operation: `GET ${new URL(stockUrl).host}/v1/stock/sku-42`,
      status: 'ok',
      attributes: expect.objectContaining({ 'http.status_code': '200' }),
    });
    expect(client!.children).toEqual([
      expect.objectContaining({ service: 'stock', kind: 'server', operation: 'GET /v1/stock/:sku' }),
    ]);
  });

  it('marks a 5xx answer as an error where it was answered and where it was received', async () => {
    const { status, traceId } = await call('/v1/products/broken');
    expect(status).toBe(502);
    const trace = await core.tool<{ spans: TraceNode[] }>('trace.get', { trace_id: traceId });
    const byKind = (service: string, kind: string) =>
      flat(trace.spans).find((n) => n.service === service && n.kind === kind)!;
    expect(byKind('shop', 'client').status).toBe('error');
    expect(byKind('stock', 'server').status).toBe('error');
    // shop answered 502 in turn: its own server span is an error too.
    expect(byKind('shop', 'server').status).toBe('error');
  });

  it('leaves requests to the ingest endpoint alone (no spans about sending spans)', async () => {
    const before = await core.tool<{ items: unknown[] }>('trace.search', { limit: 1000 });
    shop.inSpan('idle', () => undefined);
    await shop.exporter.flush();
    await shop.exporter.flush();
    const after = await core.tool<{ items: { root_operation: string }[] }>('trace.search', { limit: 1000 });
    expect(after.items.length).toBe(before.items.length + 1);
    expect(after.items.map((t) => t.root_operation)).not.toContain(
      expect.stringContaining('/ingest/v1/batch'),
    );
  });

  it('puts the original fetch back', () => {
    const wrapped = globalThis.fetch;
    const remove = instrumentFetch(shop);
    expect(globalThis.fetch).not.toBe(wrapped);
    remove();
    expect(globalThis.fetch).toBe(wrapped);
  });
});
