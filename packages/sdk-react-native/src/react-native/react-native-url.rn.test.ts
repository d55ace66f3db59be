import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTracerIn, parseDsn, type SpanScope, tracedFetch } from '@svc/sdk-core';
import { collectingExporter } from '@svc/sdk-core/testing';
import { init } from '../index';
import { fetchOverXhr, LoopbackXhr } from '../testing/loopback-xhr';

// On a device the globals `URL` and `URLSearchParams` are React Native's own (its setUpXHR
// installs Libraries/Blob/URL), not the WHATWG URL of Node and browsers: its getters are regular
// expressions (`origin` keeps `user:password@`, nothing is lowercased or percent-decoded, a
// relative URL does not throw). The SDK runs here on React Native's real file as the globals.

type UrlClass = typeof globalThis.URL;
// biome-ignore lint/suspicious/noReactNativeDeepImports: the file React Native's setUpXHR installs as the globals; no entry point exports it
const reactNative = require('react-native/Libraries/Blob/URL') as {
  URL: UrlClass;
  URLSearchParams: typeof globalThis.URLSearchParams;
};
const whatwg = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams };

function useUrl(impl: { URL: UrlClass; URLSearchParams: typeof globalThis.URLSearchParams }): void {
  globalThis.URL = impl.URL;
  globalThis.URLSearchParams = impl.URLSearchParams;
}
afterAll(() => useUrl(whatwg));

const INVALID_DSN = /dsn must look like/;

describe.each([
  ['WHATWG (Node)', whatwg],
  ["React Native's own", reactNative],
])('parseDsn on the %s URL', (_name, impl) => {
  beforeEach(() => useUrl(impl));

  it('gives the endpoint without the key, the key percent-decoded, hosts lowercased, default ports dropped', () => {
    expect(parseDsn('http://key_1:se%2Fcret@127.0.0.1:8080/prj_a')).toEqual({
      endpoint: 'http://127.0.0.1:8080',
      keyId: 'key_1',
      secret: 'se/cret',
      projectId: 'prj_a',
    });
    expect(parseDsn('https://k:s@Core.Example.COM:443/p/').endpoint).toBe('https://core.example.com');
    expect(parseDsn('HTTP://k:s@core.example:80/p').endpoint).toBe('http://core.example');
    expect(parseDsn('http://k:s@[::1]:8080/p').endpoint).toBe('http://[::1]:8080');
  });

  it.each([
    'core.example:8080/prj',
    '/prj',
    'ftp://k:s@core.example/prj',
    'http://core.example:8080/prj',
    'http://k@core.example:8080/prj',
    'http://k:s@core.example:8080/',
    'http://k:s@core.example:8080/a/b',
  ])('refuses %s', (dsn) => {
    expect(() => parseDsn(dsn)).toThrow(INVALID_DSN);
  });
});

describe("the SDK on React Native's own URL", () => {
  let core: Server;
  let api: Server;
  let corePort: number;
  let apiPort: number;
  const coreRequests: IncomingMessage[] = [];
  const batches: Record<string, Record<string, unknown>[]>[] = [];

  beforeAll(async () => {
    core = createServer((req, res) => {
      coreRequests.push(req);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url?.startsWith('/ingest/')) batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [] }));
      });
    });
    api = createServer((_req, res) => res.writeHead(200).end('{}'));
    for (const server of [core, api]) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    corePort = (core.address() as AddressInfo).port;
    // React Native's networking (fetch is built on XMLHttpRequest there) over node:http.
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = LoopbackXhr;
    apiPort = (api.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const server of [core, api]) await new Promise((r) => server.close(r));
  });
  beforeEach(() => useUrl(reactNative));

  it('is the URL a device has: origin keeps the credentials', () => {
    expect(new URL('http://k:s@127.0.0.1:8080/p').origin).toBe('http://k:s@127.0.0.1:8080');
  });

  it('traces fetch without credentials or query in http.url and leaves its own ingest requests alone', async () => {
    const exporter = collectingExporter(`http://127.0.0.1:${apiPort}`);
    const noScope: SpanScope = { active: () => undefined, run: (_span, fn) => fn() };
    const tracer = createTracerIn(
      { scope: noScope, exporter: () => exporter, logSource: 'device' },
      {
        service: 'app',
        exporter,
      },
    );
    const traced = tracedFetch(fetchOverXhr, tracer, { propagate: () => true });
    expect((await traced(`http://user:pw@LOCALHOST:${corePort}/v1/orders/42?token=t#top`)).status).toBe(200);
    // The exporter's own origin, however it is written, is not traced.
    expect((await traced(`http://k:s@127.0.0.1:${apiPort}/v1/ingest-like`)).status).toBe(200);
    expect(exporter.spans).toEqual([
      expect.objectContaining({
        operation: `GET localhost:${corePort}/v1/orders/:id`,
        attributes: expect.objectContaining({ 'http.url': `http://localhost:${corePort}/v1/orders/42` }),
      }),
    ]);
  });

  it('sends to the endpoint without the key in the URL, traces the app and asks recall with its query', async () => {
    const secret = 'device-ingest-secret';
    coreRequests.length = 0;
    const sdk = init({
      dsn: `http://key_rn:${secret}@127.0.0.1:${corePort}/prj_rn`,
      recallEndpoint: `http://127.0.0.1:${corePort}`,
      appVersion: '1.0.0',
      sampleIntervalMs: 0,
    });
    await sdk.ready;
    sdk.setUser("ana o'neil");
    expect((await fetch(`http://127.0.0.1:${apiPort}/v1/carts/7?coupon=x`)).status).toBe(200);
    const xhr = new LoopbackXhr();
    const loaded = new Promise<void>((resolve) => xhr.addEventListener('loadend', resolve));
    xhr.open('GET', `http://user:p@ss@127.0.0.1:${apiPort}/v1/items/9?x=1`);
    xhr.send();
    await loaded;
    await sdk.checkRecalls();
    await sdk.flush();

    for (const req of coreRequests) {
      expect(req.headers.authorization).toBeUndefined();
      expect(req.url).not.toContain(secret);
    }
    expect(coreRequests.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/ingest/v1/batch',
        `/device/v1/recalls?device_id=${sdk.deviceId()}&user_id=ana%20o%27neil`,
      ]),
    );
    const spans = batches.flatMap((b) => b.spans ?? []);
    expect(spans).toEqual([
      expect.objectContaining({
        kind: 'client',
        operation: `GET 127.0.0.1:${apiPort}/v1/carts/:id`,
        attributes: expect.objectContaining({ 'http.url': `http://127.0.0.1:${apiPort}/v1/carts/7` }),
      }),
      expect.objectContaining({
        kind: 'client',
        operation: `GET 127.0.0.1:${apiPort}/v1/items/:id`,
        attributes: expect.objectContaining({ 'http.url': `http://127.0.0.1:${apiPort}/v1/items/9` }),
      }),
    ]);
    await sdk.shutdown();
  });
});
