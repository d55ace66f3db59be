import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '@svc/browser-testing';
import { signIngestBody } from '@svc/observability-core';
import { type LoopbackCore, startLoopbackCore } from '@svc/observability-core/testing';
import { CONDITION_CEILING_MS, eventually } from '@svc/standalone/testing';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { bundleSdk } from '../testing/bundle';

// The Web SDK's error reports from a page in headless Chromium to a real core: an uncaught error
// in the page's minified code comes back from crash.get mapped to its source by the uploaded
// source map, linked to the trace it was thrown in; rejections and caught errors are reported; a
// storm of errors is bounded.

type SvcWeb = typeof import('@svc/sdk-web');
type Shop = typeof import('./fixtures/cart');
declare global {
  interface Window {
    SvcWeb: SvcWeb;
    shop: Shop;
  }
}

interface Frame {
  function: string;
  file: string;
  line: number | null;
  column: number | null;
  in_app: boolean;
  symbolicated?: boolean;
}
interface Crash {
  event_id: string;
  error_type: string;
  message: string;
  platform: string;
  app_version: string;
  device_os: string;
  frames: Frame[];
  symbolicated_frames: Frame[] | null;
}

const PROJECT = 'prj_sdk_web_errors';
const KEY_ID = 'key_sdk_web_errors';
const KEY_SECRET = 'sdk-web-errors-test-ingest-secret';
const RELEASE = '2.0.0';
const SOURCE = fileURLToPath(new URL('./fixtures/cart.ts', import.meta.url));

const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;

let core: LoopbackCore;
let server: Server;
let origin: string;
let browser: Browser;
let page: Page;
let dsn: string;
const allowedOrigins: string[] = [];

/** The page's code as a site ships it: minified, with a source map uploaded for its release. */
async function buildAndUploadApp(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-web-errors-'));
  await build({
    entryPoints: [SOURCE],
    outfile: join(dir, 'app.min.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    globalName: 'shop',
    sourcemap: true,
    target: 'es2020',
  });
  const map = readFileSync(join(dir, 'app.min.js.map'));
  const ts = Math.floor(Date.now() / 1000);
  const res = await fetch(
    `${core.url}/ingest/v1/debug-files?kind=sourcemap&platform=web&name=app.min.js.map&release=${RELEASE}`,
    {
      method: 'POST',
      headers: {
        'x-svc-key': KEY_ID,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': signIngestBody(KEY_SECRET, ts, map),
      },
      body: map,
    },
  );
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return readFileSync(join(dir, 'app.min.js'), 'utf8');
}

beforeAll(async () => {
  if (!executablePath) return;
  core = await startLoopbackCore({
    name: 'sdk_web_errors',
    key: { keyId: KEY_ID, secret: KEY_SECRET, projectId: PROJECT, allowedOrigins },
    internalSecret: 'sdk-web-errors-internal-secret-01',
  });
  dsn = `http://${KEY_ID}:${KEY_SECRET}@${new URL(core.url).host}/${PROJECT}`;
  const files: Record<string, string> = {
    '/': '<!doctype html><title>shop</title><script src="/sdk.js"></script><script src="/app.min.js"></script>',
    '/sdk.js': await bundleSdk(),
    '/app.min.js': await buildAndUploadApp(),
  };
  server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, {
      'content-type': req.url === '/' ? 'text/html' : 'text/javascript',
    });
    res.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  allowedOrigins.push(origin);
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await core?.close();
});

beforeEach(async () => {
  if (!executablePath) return;
  page = await browser.newPage();
  page.setDefaultTimeout(CONDITION_CEILING_MS);
  await page.goto(origin);
});
afterEach(async () => {
  await page?.close();
});

const crashes = (appVersion: string) =>
  core.ch.query<{ event_id: string; error_type: string; message: string }>(
    `SELECT event_id, error_type, message FROM crashes WHERE project_id = {p:String} AND app_version = {v:String}
     ORDER BY message`,
    { p: PROJECT, v: appVersion },
  );

describeInBrowser('the page’s errors as crash reports', () => {
  it('an uncaught error in minified code: crash.get maps its frames to the source, a log line links its trace', async () => {
    const result = await page.evaluate(
      async ({ dsn, release }) => {
        const tracing = window.SvcWeb.initTracing({ dsn, service: 'web', appVersion: release });
        const trace: { id?: string } = {};
        // Thrown from a timer: nothing catches it but the page's error event.
        await new Promise<void>((resolve) => {
          addEventListener('error', () => resolve(), { once: true });
          setTimeout(() => window.shop.checkout(tracing.tracer, trace));
        });
        await tracing.uninstall();
        return { traceId: trace.id!, stats: tracing.tracer.exporter.stats() };
      },
      { dsn, release: RELEASE },
    );
    // The crash, the checkout span (an error) and the log line.
    expect(result.stats).toEqual({ sent: 3, dropped: 0, queued: 0 });
    const [stored] = await crashes(RELEASE);
    expect(stored).toMatchObject({ error_type: 'RangeError', message: 'unknown coupon SPRING' });
    const eventId = stored!.event_id;

    let crash: Crash | undefined;
    await eventually('the crash symbolicated', async () => {
      ({ crash } = await core.tool<{ crash: Crash }>('crash.get', { event_id: eventId }));
      return crash.symbolicated_frames !== null;
    });
    expect(crash).toMatchObject({ platform: 'web', app_version: RELEASE });
    expect(crash!.device_os).toMatch(/^Linux/);
    expect(crash!.frames[0]).toMatchObject({ file: `${origin}/app.min.js`, line: 1, in_app: true });
    const source = readFileSync(SOURCE, 'utf8').split('\n');
    const throwLine = source.findIndex((l) => l.includes('throw new RangeError')) + 1;
    expect(crash!.symbolicated_frames![0]).toMatchObject({
      function: 'applyCoupon',
      line: throwLine,
      symbolicated: true,
    });
    expect(crash!.symbolicated_frames![0]!.file).toMatch(/fixtures\/cart\.ts$/);

    const logs = await core.tool<{
      items: { trace_id: string | null; event_id: string | null; level: string }[];
    }>('log.search', { search: 'unknown coupon', event_id: eventId });
    expect(logs.items).toEqual([
      expect.objectContaining({ level: 'ERROR', trace_id: result.traceId, event_id: eventId }),
    ]);
    const trace = await core.tool<{ spans: { operation: string; status: string }[] }>('trace.get', {
      trace_id: result.traceId,
    });
    expect(trace.spans).toEqual([expect.objectContaining({ operation: 'checkout', status: 'error' })]);
  });

  it('unhandled rejections and captureError; odd values are reported, never thrown into the page', async () => {
    const version = 'rejections';
    const result = await page.evaluate(
      async ({ dsn, version }) => {
        const { initTracing, captureError } = window.SvcWeb;
        const tracing = initTracing({ dsn, service: 'web', appVersion: version });
        let payTrace = '';
        await new Promise<void>((resolve) => {
          let seen = 0;
          addEventListener('unhandledrejection', () => ++seen === 3 && resolve());
          void Promise.reject('out of stock');
          void Promise.reject(new TypeError('price is not a number'));
          // Rejected after an await, when the span is no longer active: still linked to its trace.
          void tracing.tracer.inSpan('pay', async (span) => {
            payTrace = span.context.traceId;
            await null;
            throw new Error('card declined');
          });
        });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        const ids = [
          captureError(new SyntaxError('bad coupon json')),
          captureError(cyclic),
          captureError(null),
        ];
        await tracing.uninstall();
        // After uninstall nothing more is reported.
        return {
          ids,
          payTrace,
          after: captureError(new Error('late')),
          stats: tracing.tracer.exporter.stats(),
        };
      },
      { dsn, version },
    );
    expect(result.ids.every((id) => /^[0-9a-f]{32}$/.test(id ?? ''))).toBe(true);
    expect(result.after).toBeUndefined();
    // Six crashes, the pay span (an error) and its crash's log line.
    expect(result.stats).toEqual({ sent: 8, dropped: 0, queued: 0 });
    const stored = await crashes(version);
    expect(stored.map(({ error_type, message }) => [error_type, message])).toEqual([
      ['Error', '[object Object]'],
      ['SyntaxError', 'bad coupon json'],
      ['Error', 'card declined'],
      ['Error', 'null'],
      ['UnhandledRejection', 'out of stock'],
      ['TypeError', 'price is not a number'],
    ]);
    const logs = await core.ch.query<{ trace_id: string; event_id: string }>(
      'SELECT trace_id, event_id FROM logs WHERE project_id = {p:String} AND app_version = {v:String}',
      { p: PROJECT, v: version },
    );
    expect(logs).toEqual([{ trace_id: result.payTrace, event_id: stored[2]!.event_id }]);
  });

  it('a storm: an identical error reported once, at most maxErrors distinct ones a page load', async () => {
    const version = 'storm';
    const result = await page.evaluate(
      async ({ dsn, version }) => {
        const { initTracing, captureError } = window.SvcWeb;
        const tracing = initTracing({ dsn, service: 'web', appVersion: version, maxErrors: 3 });
        await new Promise<void>((resolve) => {
          let seen = 0;
          addEventListener('error', () => ++seen === 200 && resolve());
          for (let i = 0; i < 200; i++) setTimeout(() => window.shop.failAlike());
        });
        const ids = Array.from({ length: 5 }, (_, i) => captureError(new Error(`distinct ${i}`)));
        await tracing.uninstall();
        return { ids: ids.map((id) => id !== undefined), stats: tracing.tracer.exporter.stats() };
      },
      { dsn, version },
    );
    expect(result.ids).toEqual([true, true, false, false, false]);
    expect(result.stats).toEqual({ sent: 3, dropped: 0, queued: 0 });
    expect((await crashes(version)).map((c) => c.message)).toEqual([
      'distinct 0',
      'distinct 1',
      'inventory service unavailable',
    ]);
  });
});
