import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@svc/sdk-core';
import {
  createTracer,
  instrumentFetch,
  newTraceId,
  isSampled as nodeIsSampled,
  traceRequests,
} from '@svc/sdk-node';
import { isSampled as webIsSampled } from '@svc/sdk-web';
import type { LogEntry } from '@svc/tools-logs';
import { startTestCore, type TestCore, type TraceNode } from '../testing/core';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';
import { buildGoPrograms, type GoPrograms, goDecisions, startCheckout } from './go-programs';

// One trace through three processes and two languages: a Node client (sdk-node's fetch spans)
// calls the Go checkout service (sdks/go, its middleware and round tripper), which calls a Node
// prices service (sdk-node's server spans). The real core must show one tree, and the Go
// handler's log lines must carry its trace id. The Go SDK is built with the machine's Go; without
// one (outside CI) these tests are skipped, saying so.

let core: TestCore;
let go: GoPrograms | undefined;
let storefront: Tracer;
let prices: Tracer;
let pricesServer: Server;
let pricesUrl: string;

beforeAll(async () => {
  go = await buildGoPrograms();
  if (!go) console.warn('No Go 1.19+ found: the Go chain tests are skipped (apt-get install golang-go).');
  core = await startTestCore('sdk_go_chain');
  storefront = createTracer({
    service: 'storefront',
    exporter: { dsn: core.dsn(), flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  prices = createTracer({ service: 'prices', exporter: storefront.exporter });
  pricesServer = createServer(
    traceRequests(prices, (req, res) => {
      prices.log('INFO', `price read for ${req.url}`);
      const unpriced = req.url?.endsWith('/ord_unpriced1') === true;
      res.statusCode = unpriced ? 500 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(unpriced ? '' : '12.5');
    }),
  );
  await new Promise<void>((resolve) => pricesServer.listen(0, '127.0.0.1', resolve));
  pricesUrl = `http://127.0.0.1:${(pricesServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  pricesServer?.closeAllConnections();
  await new Promise((r) => pricesServer?.close(r));
  await storefront?.shutdown();
  await core?.close();
  go?.remove();
});

const withGo = (name: string, fn: () => Promise<void>) => it(name, async () => (go ? fn() : undefined));

/** Calls the Go service from a Node client span; returns its trace id once every service flushed. */
async function checkoutThroughGo(
  env: Record<string, string>,
  order: string,
): Promise<{ traceId: string; status: number }> {
  const service = await startCheckout(go!.checkout, { SVC_DSN: core.dsn(), PRICES_URL: pricesUrl, ...env });
  const uninstall = instrumentFetch(storefront);
  let traceId = '';
  let status = 0;
  try {
    await storefront.inSpan(
      'storefront checkout click',
      async (span) => {
        traceId = span.context.traceId;
        const res = await fetch(`${service.url}/v1/checkout/${order}`);
        status = res.status;
        await res.arrayBuffer();
      },
      { parent: null },
    );
  } finally {
    uninstall();
    const exit = await service.stop();
    expect(exit).toMatchObject({ code: 0 });
    expect(exit.stderr).toMatch(/telemetry: [1-9]\d* sent, 0 dropped/);
  }
  await storefront.exporter.flush();
  return { traceId, status };
}

/** The nodes of a tree, depth first, as "service kind operation status". */
function shape(node: TraceNode): unknown {
  return {
    span: `${node.service} ${node.kind} ${node.operation} ${node.status}`,
    children: node.children.map(shape),
  };
}

describe('a trace through Node -> Go -> Node', () => {
  withGo('trace.get shows one tree, client -> Go server -> Go client -> Node server', async () => {
    const { traceId, status } = await checkoutThroughGo({}, 'ord_k3vkzzr97h');
    expect(status).toBe(200);
    const trace = await core.tool<{ spans: TraceNode[]; span_count: number }>('trace.get', {
      trace_id: traceId,
    });
    const host = new URL(pricesUrl).host;
    expect(trace.spans).toHaveLength(1);
    const [root] = trace.spans;
    const goHost = root!.children[0]!.operation.replace(/^GET /, '').replace(/\/v1\/checkout\/:id$/, '');
    expect(shape(root!)).toEqual({
      span: 'storefront internal storefront checkout click unset',
      children: [
        {
          span: `storefront client GET ${goHost}/v1/checkout/:id ok`,
          children: [
            {
              span: 'checkout server GET /v1/checkout/:id ok',
              children: [
                {
                  span: 'checkout internal price.lookup unset',
                  children: [
                    {
                      span: `checkout client GET ${host}/v1/prices/:id ok`,
                      children: [{ span: 'prices server GET /v1/prices/:id ok', children: [] }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const goServer = root!.children[0]!.children[0]!;
    expect(goServer.attributes).toMatchObject({ 'http.method': 'GET', 'http.status_code': '200' });
    expect(trace.span_count).toBe(6);
  });

  withGo('the Go handler’s log lines carry its trace id (log.search by trace_id)', async () => {
    const { traceId } = await checkoutThroughGo({}, 'ord_8f2k1m3nq');
    const logs = await core.tool<{ items: LogEntry[] }>('log.search', {
      search: 'ord_8f2k1m3nq',
      trace_id: traceId,
    });
    const goLine = logs.items.find((l) => l.message === 'checkout ord_8f2k1m3nq started');
    const nodeLine = logs.items.find((l) => l.message === 'price read for /v1/prices/ord_8f2k1m3nq');
    expect(goLine).toMatchObject({ level: 'INFO', source: 'backend', trace_id: traceId });
    expect(nodeLine).toMatchObject({ trace_id: traceId });
    // Each line names the span it was written in: the Go server span, the Node server span.
    const trace = await core.tool<{ spans: TraceNode[] }>('trace.get', { trace_id: traceId });
    const goServer = trace.spans[0]!.children[0]!.children[0]!;
    expect(goLine!.span_id).toBe(goServer.span_id);
    expect(nodeLine!.span_id).toBe(goServer.children[0]!.children[0]!.children[0]!.span_id);
  });

  withGo('a failing call downstream marks the Go spans error, and the error line is kept', async () => {
    const { traceId, status } = await checkoutThroughGo({}, 'ord_unpriced1');
    expect(status).toBe(502);
    const trace = await core.tool<{ spans: TraceNode[]; error: boolean }>('trace.get', { trace_id: traceId });
    const goServer = trace.spans[0]!.children[0]!.children[0]!;
    expect(goServer).toMatchObject({
      status: 'error',
      attributes: expect.objectContaining({ 'http.status_code': '502' }),
    });
    expect(goServer.children[0]).toMatchObject({ operation: 'price.lookup', status: 'error' });
    expect(trace.error).toBe(true);
    const logs = await core.tool<{ items: LogEntry[] }>('log.search', {
      search: 'price lookup failed',
      trace_id: traceId,
    });
    expect(logs.items).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        span_id: goServer.span_id,
        attributes: expect.objectContaining({ order: 'ord_unpriced1' }),
      }),
    ]);
  });

  withGo('the Go SDK exports over OTLP/HTTP to the same core, into the same tree', async () => {
    const { traceId } = await checkoutThroughGo(
      { SVC_PROTOCOL: 'otlp', SVC_SERVICE: 'checkout-otlp' },
      'ord_0tlp12345',
    );
    const trace = await core.tool<{ spans: TraceNode[] }>('trace.get', { trace_id: traceId });
    const goServer = trace.spans[0]!.children[0]!.children[0]!;
    expect(goServer).toMatchObject({
      service: 'checkout-otlp',
      kind: 'server',
      operation: 'GET /v1/checkout/:id',
    });
    const logs = await core.tool<{ items: LogEntry[] }>('log.search', {
      search: 'ord_0tlp12345 started',
      trace_id: traceId,
    });
    expect(logs.items).toHaveLength(1);
  });

  withGo('a sampled-out trace is dropped whole, in every service', async () => {
    // 00000000000000000000000000000001 is dropped at 0.5 (the shared vectors): every SDK agrees.
    const dropped = '00000000000000000000000000000001';
    expect([
      nodeIsSampled(dropped, 0.5),
      webIsSampled(dropped, 0.5),
      goDecisions(go!.sampleDecide, [[dropped, 0.5]])[0],
    ]).toEqual([false, false, false]);
  });
});

describe('head sampling: Node, Web and Go decide alike', () => {
  interface Vectors {
    vectors: { trace_id: string; sampled: Record<string, boolean> }[];
  }
  const vectors = JSON.parse(
    readFileSync(createRequire(import.meta.url).resolve('@svc/sdk-core/fixtures/sampling.json'), 'utf8'),
  ) as Vectors;

  withGo('every shared vector, as the file says, in all three SDKs', async () => {
    const pairs = vectors.vectors.flatMap((v) =>
      Object.keys(v.sampled).map((rate) => [v.trace_id, Number(rate)] as [string, number]),
    );
    const expected = vectors.vectors.flatMap((v) => Object.values(v.sampled));
    expect(pairs.length).toBeGreaterThan(20);
    expect(goDecisions(go!.sampleDecide, pairs)).toEqual(expected);
    expect(pairs.map(([id, rate]) => nodeIsSampled(id, rate))).toEqual(expected);
    expect(pairs.map(([id, rate]) => webIsSampled(id, rate))).toEqual(expected);
  });

  withGo('5,000 random trace ids at six rates', async () => {
    const rates = [0.001, 0.01, 0.1, 0.25, 0.5, 0.9];
    const pairs = Array.from(
      { length: 5000 },
      (_, i) => [newTraceId(), rates[i % rates.length]!] as [string, number],
    );
    const node = pairs.map(([id, rate]) => nodeIsSampled(id, rate));
    expect(goDecisions(go!.sampleDecide, pairs)).toEqual(node);
    expect(pairs.map(([id, rate]) => webIsSampled(id, rate))).toEqual(node);
    // Not all one way: the comparison means something.
    expect(node.filter(Boolean).length).toBeGreaterThan(500);
    expect(node.filter((kept) => !kept).length).toBeGreaterThan(500);
  });
});
