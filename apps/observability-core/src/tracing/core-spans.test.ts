import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createSelfTracer, SELF_TRACE_MIDDLEWARE, type Tracer } from '@svc/self-trace';
import type { Express } from 'express';
import { createCoreApp } from '../app';
import { createCoreTestDatabase } from '../testing/core-database';
import { staticIngestKeys } from '../testing/core-harness';

// The core traced by itself, on loopback: it sends its own spans to its own internal ingest route.
// A tool call gives the server span (the caller's traceparent its parent), the tool's span and one
// per query, with the time each query waited for a chDB session apart from the time it ran.

const SECRET = 'core-spans-internal-secret-0123';
const PROJECT = 'prj_stack';
const CALLER = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

interface SpanRow {
  span_id: string;
  parent_span_id: string;
  trace_id: string;
  kind: string;
  status: string;
  operation: string;
  service: string;
  attributes: Record<string, string>;
}

let ch: ClickHouse;
let server: Server;
let url: string;
let tracer: Tracer;
let app: Express;

beforeAll(async () => {
  ch = await createCoreTestDatabase('core_spans');
  // Listening first: the tracer needs the core's address, the app needs the tracer.
  let handler = (_req: IncomingMessage, res: ServerResponse) => void res.end();
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tracer = createSelfTracer({
    service: 'observability-core',
    project: PROJECT,
    coreUrl: url,
    internalSecret: SECRET,
  })!;
  app = createCoreApp({
    ch,
    ingestKeys: staticIngestKeys(new Map()),
    internalSecret: SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    tracer,
  });
  handler = app;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await dropTestClickHouse(ch);
});

async function spans(): Promise<SpanRow[]> {
  return ch.query<SpanRow>(
    `SELECT span_id, parent_span_id, trace_id, kind, status, operation, service, attributes
     FROM spans WHERE project_id = {p:String} ORDER BY start_time`,
    { p: PROJECT },
  );
}

describe('the core traced by itself', () => {
  it('installs its middleware only with a tracer', () => {
    const names = (a: Express) => a.router.stack.map((layer: { name: string }) => layer.name);
    const off = createCoreApp({
      ch,
      ingestKeys: staticIngestKeys(new Map()),
      internalSecret: SECRET,
      logger: silentLogger,
      metrics: createNoopMetrics(),
    });
    expect(names(off)).not.toContain(SELF_TRACE_MIDDLEWARE);
    expect(names(app)).toContain(SELF_TRACE_MIDDLEWARE);
  });

  it('reports a tool call as server span -> tool span -> one span per query, and nothing for probes', async () => {
    const res = await fetch(`${url}/internal/v1/projects/prj_app/tools/log.recent`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-internal-secret': SECRET,
        traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-01`,
      },
      body: JSON.stringify({}),
    });
    expect(res.status).toBe(200);
    await fetch(`${url}/healthz`);
    await tracer.exporter.flush();

    const all = await spans();
    expect(new Set(all.map((s) => s.trace_id))).toEqual(new Set([CALLER.traceId]));
    expect(all.every((s) => s.service === 'observability-core')).toBe(true);
    const server = all.find((s) => s.kind === 'server')!;
    expect(server).toMatchObject({
      operation: 'POST /internal/v1/projects/:project_id/tools/:tool',
      parent_span_id: CALLER.spanId,
      status: 'ok',
    });
    const tool = all.find((s) => s.operation === 'tool log.recent')!;
    expect(tool).toMatchObject({ kind: 'internal', parent_span_id: server.span_id, status: 'ok' });
    expect(Number(tool.attributes['scheduler.wait_ms'])).toBeGreaterThanOrEqual(0);
    expect(tool.attributes['scheduler.priority']).toBe('1');
    const queries = all.filter((s) => s.parent_span_id === tool.span_id);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      expect(q).toMatchObject({ kind: 'client', status: 'ok', operation: expect.stringMatching(/^SELECT /) });
      expect(q.attributes).toMatchObject({ 'db.system': 'clickhouse', 'db.embedded': 'true' });
      expect(q.attributes['db.statement']).toContain('project_id = {project_id:String}');
      expect(Number(q.attributes['db.queue_wait_ms'])).toBeGreaterThanOrEqual(0);
      expect(Number(q.attributes['db.run_ms'])).toBeGreaterThan(0);
      expect(Number(q.attributes['db.rows'])).toBeGreaterThanOrEqual(0);
    }
    // The health probe and the export requests themselves made no span.
    expect(all.length).toBe(2 + queries.length);
  });
});
