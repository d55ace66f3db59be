import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatTraceparent, newSpanId, newTraceId } from '@svc/sdk-core';
import { collectingExporter } from '@svc/sdk-core/testing';
import { traceRequests } from './http-server';
import { createTracer } from './tracer';

// A server's spans start where its requests do: the caller's traceparent, else a new root. The
// span that was active when the server was created (a startup span, say) is no parent of them,
// though its context follows the listening socket into every connection.

const exporter = collectingExporter();
const tracer = createTracer({ service: 'orders', exporter });
let server: Server;
let base: string;
let startupTrace: string;

beforeAll(async () => {
  // Listening inside a span: its context is the one every accepted connection inherits.
  await tracer.inSpan('startup', async (startup) => {
    startupTrace = startup.context.traceId;
    server = createServer(traceRequests(tracer, (_req, res) => res.end('ok')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

async function serverSpanOf(headers: Record<string, string> = {}) {
  exporter.spans.length = 0;
  const res = await fetch(`${base}/v1/orders/42`, { headers });
  await res.text();
  await new Promise((r) => setImmediate(r));
  return exporter.spans.find((s) => s.kind === 'server');
}

describe('the server middleware', () => {
  it('starts a root for a request without a traceparent, not a child of the span the server started in', async () => {
    const span = await serverSpanOf();
    expect(span).toMatchObject({ operation: 'GET /v1/orders/:id', status: 'ok', parent_span_id: undefined });
    expect(span!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(span!.trace_id).not.toBe(startupTrace);
  });

  it("continues the caller's trace under the caller's span", async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    const span = await serverSpanOf({ traceparent: formatTraceparent(caller) });
    expect(span).toMatchObject({ trace_id: caller.traceId, parent_span_id: caller.spanId });
  });
});
