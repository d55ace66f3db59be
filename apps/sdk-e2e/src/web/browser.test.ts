import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { findChromium } from '@svc/browser-testing';
import { type LoopbackCore, startLoopbackCore } from '@svc/observability-core/testing';
import { createTracer as createNodeTracer, expressTracing, type Tracer as NodeTracer } from '@svc/sdk-node';
import { CONDITION_CEILING_MS } from '@svc/standalone/testing';
import express from 'express';
import { type Browser, chromium, type Page } from 'playwright-core';
import { bundleSdk } from '../testing/bundle';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';

// A page instrumented with the Web SDK in headless Chromium calls a Node service instrumented with
// the Node SDK; both export to a real core, and the trace is read back with trace.get.

type SvcWeb = typeof import('@svc/sdk-web');
declare global {
  interface Window {
    SvcWeb: SvcWeb;
  }
}

interface TraceSpan {
  span_id: string;
  parent_span_id: string | null;
  service: string | null;
  kind: string;
  operation: string;
  status: string;
  children: TraceSpan[];
}
interface Trace {
  found: boolean;
  span_count: number;
  spans: TraceSpan[];
}

const PROJECT = 'prj_sdk_web';
const KEY_ID = 'key_sdk_web';
const KEY_SECRET = 'sdk-web-test-ingest-secret-012345';
const INTERNAL_SECRET = 'sdk-web-test-internal-secret-0123';

const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('sdk-web browser tests skipped: no Chromium (set CHROMIUM_PATH)');

let core: LoopbackCore;
let backend: Server;
let backendTracer: NodeTracer;
let origin: string;
let browser: Browser;
let page: Page;
const allowedOrigins: string[] = [];
let dsn: string;

async function listen(app: express.Express): Promise<[Server, string]> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  if (!executablePath) return;
  core = await startLoopbackCore({
    name: 'sdk_web_browser',
    key: { keyId: KEY_ID, secret: KEY_SECRET, projectId: PROJECT, allowedOrigins },
    internalSecret: INTERNAL_SECRET,
  });
  dsn = `http://${KEY_ID}:${KEY_SECRET}@${new URL(core.url).host}/${PROJECT}`;
  backendTracer = createNodeTracer({
    service: 'orders',
    exporter: { dsn, flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  const sdk = await bundleSdk();
  const app = express();
  app.use(expressTracing(backendTracer));
  // The API also serves pages of other origins, and lets them send traceparent.
  app.use('/api', (req, res, next) => {
    res.set({ 'access-control-allow-origin': '*', 'access-control-allow-headers': 'traceparent' });
    if (req.method === 'OPTIONS') return void res.sendStatus(204);
    next();
  });
  app.get(
    '/',
    (_req, res) =>
      void res.type('html').send('<!doctype html><title>shop</title><script src="/sdk.js"></script>'),
  );
  app.get('/sdk.js', (_req, res) => void res.type('js').send(sdk));
  app.get('/api/orders/:id', (req, res) => {
    res.json({ id: req.params.id, traceparent: req.get('traceparent') ?? null });
  });
  app.get('/api/broken', (_req, res) => void res.status(503).json({ error: 'down' }));
  [backend, origin] = await listen(app);
  allowedOrigins.push(origin);
  // Playwright's waits (a launch, a page loaded) have a 30 s default; a loaded machine can take
  // longer, so they get the conditions' ceiling.
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
});

afterAll(async () => {
  await browser?.close();
  backend?.closeAllConnections();
  await new Promise((r) => (backend ? backend.close(r) : r(undefined)));
  await backendTracer?.shutdown();
  await core?.close();
});

beforeEach(async () => {
  if (!executablePath) return;
  page = await browser.newPage();
  page.setDefaultTimeout(CONDITION_CEILING_MS);
  page.setDefaultNavigationTimeout(CONDITION_CEILING_MS);
  await page.goto(origin);
});
afterEach(async () => {
  await page?.close();
});

/** The trace as the core has it, once the backend's spans are sent too. */
async function traceOf(traceId: string): Promise<Trace> {
  await backendTracer.exporter.flush();
  return core.tool<Trace>('trace.get', { trace_id: traceId });
}

const traceIdOf = (traceparent: string) => traceparent.split('-')[1]!;

describeInBrowser('a page with the Web SDK calling a service with the Node SDK', () => {
  it('fetch: one trace, the page client span the parent of the server span', async () => {
    const result = await page.evaluate(async (dsn) => {
      const tracing = window.SvcWeb.initTracing({ dsn, service: 'web' });
      const body = await (await fetch('/api/orders/42')).json();
      await tracing.uninstall();
      return { body, stats: tracing.tracer.exporter.stats() };
    }, dsn);
    expect(result.body.id).toBe('42');
    expect(result.stats).toEqual({ sent: 1, dropped: 0, queued: 0 });
    const trace = await traceOf(traceIdOf(result.body.traceparent));
    expect(trace.span_count).toBe(2);
    const [client] = trace.spans;
    expect(client).toMatchObject({
      service: 'web',
      kind: 'client',
      status: 'ok',
      parent_span_id: null,
      operation: `GET ${new URL(origin).host}/api/orders/:id`,
    });
    expect(client!.children).toEqual([
      expect.objectContaining({
        service: 'orders',
        kind: 'server',
        operation: 'GET /api/orders/:id',
        parent_span_id: client!.span_id,
      }),
    ]);
    // The header the server got points at the page's client span.
    expect(result.body.traceparent.split('-')[2]).toBe(client!.span_id);
  });

  it('XMLHttpRequest inside a span: page span -> client span -> server span; a 503 is an error', async () => {
    const result = await page.evaluate(async (dsn) => {
      const { initTracing } = window.SvcWeb;
      const tracing = initTracing({ dsn, service: 'web' });
      const get = (url: string) =>
        new Promise<{ status: number; text: string }>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', url);
          xhr.onloadend = () => resolve({ status: xhr.status, text: xhr.responseText });
          xhr.send();
        });
      const answers = await tracing.tracer.inSpan('load order page', () =>
        Promise.all([get('/api/orders/7'), get('/api/broken')]),
      );
      await tracing.uninstall();
      return answers;
    }, dsn);
    expect(result.map((a) => a.status)).toEqual([200, 503]);
    const trace = await traceOf(traceIdOf(JSON.parse(result[0]!.text).traceparent));
    expect(trace.span_count).toBe(5);
    const [root] = trace.spans;
    expect(root).toMatchObject({ service: 'web', kind: 'internal', operation: 'load order page' });
    const clients = root!.children.map((c) => ({
      operation: c.operation.split('/').slice(1).join('/'),
      status: c.status,
      kind: c.kind,
      server: c.children.map((s) => [s.service, s.kind, s.status]),
    }));
    expect(clients).toEqual(
      expect.arrayContaining([
        { operation: 'api/orders/:id', status: 'ok', kind: 'client', server: [['orders', 'server', 'ok']] },
        { operation: 'api/broken', status: 'error', kind: 'client', server: [['orders', 'server', 'error']] },
      ]),
    );
  });

  it('sends traceparent to the page origin, and to another origin only when propagateTo names it', async () => {
    const other = origin.replace('127.0.0.1', 'localhost');
    const result = await page.evaluate(
      async ({ dsn, other }) => {
        const { initTracing } = window.SvcWeb;
        const got = async () => (await (await fetch(`${other}/api/orders/3`)).json()).traceparent;
        let tracing = initTracing({ dsn, service: 'web' });
        const plain = await got();
        const own = (await (await fetch('/api/orders/3')).json()).traceparent;
        await tracing.uninstall();
        tracing = initTracing({ dsn, service: 'web', propagateTo: [other] });
        const named = await got();
        await tracing.uninstall();
        return { plain, own, named };
      },
      { dsn, other },
    );
    expect(result.plain).toBeNull();
    expect(result.own).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(result.named).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('traceHeaders: the active span inside one, nothing outside', async () => {
    const result = await page.evaluate(async (dsn) => {
      const { initTracing, traceHeaders } = window.SvcWeb;
      const tracing = initTracing({ dsn, service: 'web', instrument: { fetch: false, xhr: false } });
      const outside = traceHeaders();
      const inside = tracing.tracer.inSpan('ws connect', (span) => ({
        headers: traceHeaders(),
        own: `00-${span.context.traceId}-${span.context.spanId}-01`,
      }));
      await tracing.uninstall();
      return { outside, inside };
    }, dsn);
    expect(result.outside).toEqual({});
    expect(result.inside.headers).toEqual({ traceparent: result.inside.own });
  });

  it('never traces its own exports, and sends nothing but the spans of sampled traces and errors', async () => {
    const result = await page.evaluate(async (dsn) => {
      const tracing = window.SvcWeb.initTracing({ dsn, service: 'web', sampleRate: 0.000001 });
      const kept = await fetch('/api/orders/1');
      const failed = await fetch('/api/broken');
      await tracing.uninstall();
      return { kept: kept.status, failed: failed.status, stats: tracing.tracer.exporter.stats() };
    }, dsn);
    // At this rate the trace is dropped; the 503 still reports its error span (errors are never sampled away).
    expect(result).toEqual({ kept: 200, failed: 503, stats: { sent: 1, dropped: 0, queued: 0 } });
  });
});

describeInBrowser('CORS at the ingest endpoint', () => {
  it('refuses an origin the key does not allow: nothing stored, and the page works as before', async () => {
    // The same server under another name is another origin.
    const other = origin.replace('127.0.0.1', 'localhost');
    await page.goto(other);
    const result = await page.evaluate(async (dsn) => {
      const errors: unknown[] = [];
      const tracing = window.SvcWeb.initTracing({
        dsn,
        service: 'web-elsewhere',
        exporter: { maxAttempts: 1, onError: (e) => void errors.push(e) },
      });
      const res = await fetch('/api/orders/5');
      await tracing.uninstall();
      return { status: res.status, stats: tracing.tracer.exporter.stats(), errors };
    }, dsn);
    expect(result.status).toBe(200);
    expect(result.stats).toEqual({ sent: 0, dropped: 1, queued: 0 });
    // A refused preflight is a network error to the page: it cannot tell it from an outage.
    expect(result.errors).toEqual([{ reason: 'gave_up', records: 1 }]);
    const stored = await core.ch.query<{ n: string }>(
      "SELECT count() AS n FROM spans WHERE service = 'web-elsewhere'",
    );
    expect(stored).toEqual([{ n: '0' }]);
  });

  it('recovers from a page clock off by ten minutes (the 401 tells the server time)', async () => {
    const result = await page.evaluate(async (dsn) => {
      const realNow = Date.now.bind(Date);
      Date.now = () => realNow() + 10 * 60_000;
      const tracing = window.SvcWeb.initTracing({ dsn, service: 'web-skewed' });
      await fetch('/api/orders/9');
      await tracing.uninstall();
      return tracing.tracer.exporter.stats();
    }, dsn);
    expect(result).toEqual({ sent: 1, dropped: 0, queued: 0 });
  });
});

describeInBrowser('head sampling in Chromium', () => {
  interface Vectors {
    fnv1a32_reference: { input: string; hash: string }[];
    vectors: { trace_id: string; hash: string; sampled: Record<string, boolean> }[];
  }
  // The package's copy of the sampling vectors every SDK shares (sdk-core's sampling test keeps it
  // equal to the originals).
  const file = createRequire(import.meta.url).resolve('@svc/sdk-core/fixtures/sampling.json');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as Vectors;

  it('computes every vector as the fixture says', async () => {
    const computed = await page.evaluate((v: Vectors) => {
      const { fnv1a32, isSampled } = window.SvcWeb;
      const hex = (n: number) => n.toString(16).padStart(8, '0');
      return {
        reference: v.fnv1a32_reference.map((r) => hex(fnv1a32(r.input))),
        hashes: v.vectors.map((x) => hex(fnv1a32(x.trace_id))),
        sampled: v.vectors.map((x) =>
          Object.fromEntries(
            Object.keys(x.sampled).map((rate) => [rate, isSampled(x.trace_id, Number(rate))]),
          ),
        ),
      };
    }, fixture);
    expect(fixture.vectors.length).toBeGreaterThan(0);
    expect(computed).toEqual({
      reference: fixture.fnv1a32_reference.map((r) => r.hash),
      hashes: fixture.vectors.map((x) => x.hash),
      sampled: fixture.vectors.map((x) => x.sampled),
    });
  });
});
