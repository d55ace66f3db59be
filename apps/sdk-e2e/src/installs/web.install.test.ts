import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { findChromium } from '@svc/browser-testing';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '@svc/standalone/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestStack, type TestStack } from '../testing/stack';
import { createApp, type ThrowawayApp, versionHere } from './testing';

// The Web SDK as a site installs it from its tarball (npm, outside the repository), in Chromium
// against the spawned stack: (a) a page that loads the package's script-tag file with its SRI
// `integrity` and starts it from the tag's data attributes, no code; (b) an ES module app that
// imports the package and is bundled by esbuild, installed in the app from the registry. Both call
// an API of this test's server, which records the traceparent it gets; the page's spans and a
// thrown error are read back with the stack's tools (trace.get, crash.recent, crash.get).

interface TraceSpan {
  span_id: string;
  service: string | null;
  kind: string;
  operation: string;
  status: string;
  children: TraceSpan[];
}
interface Crash {
  event_id: string;
  error_type: string;
  message: string;
  app_version: string;
  platform: string;
  frames: { function: string; file: string; line: number | null }[];
}
/** What the tests read of a running tracing in the page. */
interface PageTracing {
  flush(): Promise<void>;
  tracer: { exporter: { stats(): { sent: number; dropped: number; queued: number } } };
}

// The ES module app: its own code, importing the installed package by name.
const APP_SOURCE = `import { captureError, initTracing } from '@svc/sdk-web';

const { dsn } = window.SHOP;
const tracing = initTracing({ dsn, service: 'web-esm', appVersion: '3.1.0' });

export async function placeOrder(id) {
  const viaFetch = await (await fetch('/api/orders/' + id)).json();
  const viaXhr = await new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', '/api/orders/' + id);
    xhr.onload = () => resolve(JSON.parse(xhr.responseText));
    xhr.send();
  });
  return [viaFetch, viaXhr];
}

export function reportRefusedCoupon() {
  try {
    JSON.parse('{coupon');
  } catch (err) {
    return captureError(err);
  }
}

window.shop = { placeOrder, reportRefusedCoupon, tracing };
`;

const executablePath = findChromium();
const describeInBrowser = executablePath ? describe : describe.skip;
if (!executablePath) console.warn('web install proof skipped: no Chromium (set CHROMIUM_PATH)');

let stack: TestStack;
let app: ThrowawayApp;
let server: Server;
let origin: string;
let browser: Browser;
/** The traceparent header of every API request the pages made, in order. */
const received: string[] = [];
let integrity: string;

function send(res: import('node:http').ServerResponse, type: string, body: string | Buffer) {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
}

/** The pages, the files they load from the installed app, and the API. */
function serve(req: IncomingMessage, res: import('node:http').ServerResponse) {
  const url = new URL(req.url ?? '/', origin);
  const dist = join(app.dir, 'node_modules/@svc/sdk-web/dist');
  if (url.pathname.startsWith('/api/orders/')) {
    received.push(String(req.headers.traceparent ?? ''));
    return send(res, 'application/json', JSON.stringify({ id: url.pathname.split('/').pop() }));
  }
  if (url.pathname === '/script-tag.html')
    return send(
      res,
      'text/html',
      `<!doctype html><title>shop</title>
<script src="/svc-web.min.js" integrity="${integrity}" crossorigin="anonymous"
  data-dsn="${stack.dsn}" data-service="web-script-tag" data-app-version="3.0.0"></script>
<script>function applyDiscount() { throw new TypeError('cart total is not a number'); }</script>`,
    );
  if (url.pathname === '/svc-web.min.js')
    return send(res, 'text/javascript', readFileSync(join(dist, 'svc-web.min.js')));
  if (url.pathname === '/esm.html')
    return send(
      res,
      'text/html',
      `<!doctype html><title>shop</title><script>window.SHOP = ${JSON.stringify({ dsn: stack.dsn })}</script>
<script type="module" src="/app.js"></script>`,
    );
  if (url.pathname === '/app.js')
    return send(res, 'text/javascript', readFileSync(join(app.dir, 'public/app.js')));
  res.writeHead(404).end();
}

beforeAll(async () => {
  if (!executablePath) return;
  // The stack and the app's install are independent: side by side.
  [stack, app] = await Promise.all([
    startTestStack(),
    createApp({
      name: 'web-shop',
      type: 'module',
      packages: ['@svc/sdk-web'],
      devDependencies: { esbuild: versionHere('esbuild') },
      files: { 'src/main.js': APP_SOURCE },
    }),
  ]);
  // The app's build, as its package.json script would run it.
  await app.run('node_modules/.bin/esbuild', [
    'src/main.js',
    '--bundle',
    '--minify',
    '--format=esm',
    '--platform=browser',
    '--outfile=public/app.js',
  ]);
  integrity = readFileSync(join(app.dir, 'node_modules/@svc/sdk-web/dist/svc-web.min.js.sri'), 'utf8').trim();
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The key allows the pages' origin, as an operator sets it for a site.
  const { urls } = stack.stack.ready;
  const res = await fetch(
    `${urls.identity}/internal/v1/admin/ingest-keys/${stack.key.key_id}/allowed-origins`,
    {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-internal-secret': stack.stack.internalSecret },
      body: JSON.stringify({ allowed_origins: [origin] }),
    },
  );
  if (!res.ok) throw new Error(`allowed origins: ${res.status} ${await res.text()}`);
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], timeout: CONDITION_CEILING_MS });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await stack?.close();
  await app?.remove();
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(CONDITION_CEILING_MS);
  page.setDefaultNavigationTimeout(CONDITION_CEILING_MS);
  await page.goto(`${origin}${path}`);
  return page;
}

/** The client spans of the trace a traceparent names, as trace.get shows them. */
async function clientSpansOf(traceparent: string): Promise<TraceSpan[]> {
  const [, traceId, spanId] = traceparent.split('-');
  const trace = await stack.tool<{ found: boolean; spans: TraceSpan[] }>('trace.get', { trace_id: traceId });
  expect(trace.found).toBe(true);
  // The header names the page's client span: the one the API's request was made in.
  expect(trace.spans.map((s) => s.span_id)).toContain(spanId);
  return trace.spans;
}

async function crashWith(message: string): Promise<Crash> {
  const { items } = await stack.tool<{ items: { event_id: string; message: string }[] }>('crash.recent', {
    limit: 50,
  });
  const item = items.find((c) => c.message === message);
  expect(item).toBeDefined();
  const { found, crash } = await stack.tool<{ found: boolean; crash: Crash }>('crash.get', {
    event_id: item!.event_id,
  });
  expect(found).toBe(true);
  return crash;
}

describeInBrowser('the Web SDK installed from its tarball, in Chromium', () => {
  it('a page with the script-tag file (SRI checked) and data attributes: spans and a thrown error arrive', async () => {
    const page = await open('/script-tag.html');
    const before = received.length;
    const answer = await page.evaluate(async () => {
      // Started by the script tag's data-dsn: the page has no code of its own for it.
      const { started } = (window as unknown as { SvcWeb: { started: PageTracing } }).SvcWeb;
      await fetch('/api/orders/11');
      await new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('GET', '/api/orders/12');
        xhr.onloadend = () => resolve();
        xhr.send();
      });
      // Thrown by the page's own script from a timer: only the page's error event sees it.
      await new Promise<void>((resolve) => {
        addEventListener('error', () => resolve(), { once: true });
        setTimeout(() => (window as unknown as { applyDiscount(): void }).applyDiscount());
      });
      await started.flush();
      return { stats: started.tracer.exporter.stats() };
    });
    await page.close();
    // Two client spans and the crash, delivered.
    expect(answer.stats).toEqual({ sent: 3, dropped: 0, queued: 0 });
    const headers = received.slice(before);
    expect(headers).toHaveLength(2);
    for (const header of headers) {
      expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(await clientSpansOf(header)).toEqual([
        expect.objectContaining({ service: 'web-script-tag', kind: 'client', status: 'ok' }),
      ]);
    }
    const crash = await crashWith('cart total is not a number');
    expect(crash).toMatchObject({ error_type: 'TypeError', platform: 'web', app_version: '3.0.0' });
    expect(crash.frames[0]).toMatchObject({ function: 'applyDiscount', file: `${origin}/script-tag.html` });
  });

  it('an ES module app bundled by esbuild from the installed package: spans and a captured error arrive', async () => {
    const page = await open('/esm.html');
    await page.waitForFunction(() => 'shop' in window);
    const before = received.length;
    const answer = await page.evaluate(async () => {
      const { shop } = window as unknown as {
        shop: {
          placeOrder(id: number): Promise<unknown>;
          reportRefusedCoupon(): string | undefined;
          tracing: PageTracing;
        };
      };
      await shop.placeOrder(21);
      const eventId = shop.reportRefusedCoupon();
      await shop.tracing.flush();
      return { eventId, stats: shop.tracing.tracer.exporter.stats() };
    });
    await page.close();
    expect(answer.stats).toEqual({ sent: 3, dropped: 0, queued: 0 });
    const headers = received.slice(before);
    expect(headers).toHaveLength(2);
    for (const header of headers)
      expect(await clientSpansOf(header)).toEqual([
        expect.objectContaining({
          service: 'web-esm',
          kind: 'client',
          status: 'ok',
          operation: expect.stringMatching(/^GET .*\/api\/orders\/:id$/),
        }),
      ]);
    const { found, crash } = await stack.tool<{ found: boolean; crash: Crash }>('crash.get', {
      event_id: answer.eventId,
    });
    expect(found).toBe(true);
    expect(crash).toMatchObject({ error_type: 'SyntaxError', platform: 'web', app_version: '3.1.0' });
    // The frame of the app's bundle that called JSON.parse.
    expect(crash.frames.map((f) => f.file)).toContain(`${origin}/app.js`);
  });
});
