import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPORTER_HEADER } from '@svc/sdk-core';
import { collectingExporter } from '@svc/sdk-core/testing';
import { activeSpan } from '@svc/sdk-node';
import express from 'express';
import { SELF_TRACE_MIDDLEWARE, selfTraceMiddleware } from './middleware';
import { createSelfTracer } from './tracer';

// A server span per request, over real HTTP on loopback, with an exporter that keeps the spans.

const exporter = collectingExporter();
const tracer = createSelfTracer({ service: 'identity', project: 'p', internalSecret: 'unused', exporter })!;
let server: Server;
let url: string;
let seenInHandler: string | undefined;
let app: express.Express;

beforeAll(async () => {
  app = express();
  app.use(
    selfTraceMiddleware(tracer, {
      route: (req) => (req.url === '/named' ? '/my-name' : undefined),
      untraced: ['/keepalive'],
      ignore: (req) => req.method === 'GET' && req.url === '/stream',
    }),
  );
  app.post('/keepalive', (_req, res) => void res.json({}));
  app.get('/stream', (_req, res) => void res.json({}));
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/metrics', (_req, res) => void res.send(''));
  app.get('/named', (_req, res) => void res.json({}));
  app.get('/boom', (_req, res) => void res.status(503).json({}));
  app.get('/internal/v1/orgs/:org_id', (_req, res) => {
    seenInHandler = activeSpan()?.spanId;
    res.json({});
  });
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  exporter.spans.length = 0;
});

describe('selfTraceMiddleware', () => {
  it('is named, so an app with it can be told from one without', () => {
    expect(app.router.stack.map((l: { name: string }) => l.name)).toContain(SELF_TRACE_MIDDLEWARE);
  });

  it("makes a server span named by the route, continuing the caller's traceparent, active in the handler", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await fetch(`${url}/internal/v1/orgs/org_12345678?x=1`, { headers: { traceparent } });
    expect(exporter.spans).toEqual([
      expect.objectContaining({
        service: 'identity',
        kind: 'server',
        status: 'ok',
        operation: 'GET /internal/v1/orgs/:org_id',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        parent_span_id: '00f067aa0ba902b7',
        span_id: seenInHandler,
        attributes: { 'http.method': 'GET', 'http.status_code': '200' },
      }),
    ]);
  });

  it('takes the operation from the route option, marks a 5xx as an error, starts a root without a caller', async () => {
    await fetch(`${url}/named`);
    await fetch(`${url}/boom`);
    const [named, boom] = exporter.spans;
    expect(named).toMatchObject({ operation: 'GET /my-name', status: 'ok' });
    expect(named?.parent_span_id).toBeUndefined();
    expect(boom).toMatchObject({ operation: 'GET /boom', status: 'error' });
  });

  it('does not trace probes, scrapes, the paths and requests it is told, or the exports of a tracer', async () => {
    await fetch(`${url}/healthz`);
    await fetch(`${url}/keepalive`, { method: 'POST' });
    await fetch(`${url}/stream`);
    await fetch(`${url}/metrics?name[]=x`);
    await fetch(`${url}/named`, { headers: { [EXPORTER_HEADER]: '1' } });
    expect(exporter.spans).toEqual([]);
  });
});
