import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTraceparent } from '@svc/sdk-core';
import { nodePlatform } from './node/node-platform';
import { createMobileSdk, type MobileSdk, type SdkError } from './sdk';
import { fetchOverXhr, LoopbackXhr } from './testing/loopback-xhr';
import { type Sink, startSink } from './testing/sink';

// The SDK on the Node platform against a loopback core stand-in (signatures checked): what it
// leaves out rather than have the core refuse a whole batch, that it never throws, and the
// XMLHttpRequest instrumentation with React Native's fetch built on XMLHttpRequest.

let sink: Sink;
let dir: string;
let backend: Server;
let backendUrl: string;
const seenTraceparents: (string | undefined)[] = [];
const sdks: MobileSdk[] = [];
const originalFetch = globalThis.fetch;

beforeAll(async () => {
  sink = await startSink();
  backend = createServer((req, res) => {
    seenTraceparents.push(req.headers.traceparent as string | undefined);
    res.writeHead(req.url?.includes('broken') ? 503 : 200).end('ok');
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sink.close();
  await new Promise((r) => backend.close(r));
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sdk-'));
  sink.batches.length = 0;
  seenTraceparents.length = 0;
});
afterEach(async () => {
  for (const sdk of sdks.splice(0)) await sdk.shutdown();
  delete (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest;
  globalThis.fetch = originalFetch;
  rmSync(dir, { recursive: true, force: true });
});

function start(errors: SdkError[] = []) {
  const sdk = createMobileSdk(
    {
      dsn: sink.dsn,
      appVersion: '4.2.0',
      sampleIntervalMs: 0,
      appStart: 'manual',
      onError: (e) => void errors.push(e),
    },
    nodePlatform({ dir }),
  );
  sdks.push(sdk);
  return sdk;
}

describe('records the core would refuse are left out, the rest goes', () => {
  it('never throws; counts and tells what it left out', async () => {
    const errors: SdkError[] = [];
    const sdk = start(errors);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const calls = [
      () => sdk.metric('fps', Number.NaN),
      () => sdk.metric('', 1),
      () => sdk.metric('checkout_ms', 2e15),
      () => sdk.track(''),
      () => sdk.track('opened', cyclic),
      () => sdk.feedback('   '),
      () => sdk.feedback('great', { rating: 11 }),
      () => sdk.log('INFO', 'fine', cyclic),
      () =>
        sdk.metric('checkout_ms', 512, {
          unit: 'ms',
          attributes: { screen: 'Cart', ok: true, n: 3, nested: { a: 1 } },
        }),
    ];
    for (const call of calls) expect(call).not.toThrow();
    await sdk.flush();
    expect(errors.map((e) => e.reason)).toEqual(Array(7).fill('invalid'));
    expect(errors.map((e) => e.message)).toEqual([
      'a metric value must be a finite number within -1e15 .. 1e15',
      'a metric name must be a text of 1 to 200 characters',
      'a metric value must be a finite number within -1e15 .. 1e15',
      'an event name must be a text of 1 to 200 characters',
      'event opened: properties are not JSON (a cycle or a BigInt); sent without them',
      'feedback must not be empty',
      'a rating must be a number in 0..10; sent without it',
    ]);
    expect(sdk.stats().invalid).toBe(7);
    expect(sink.records('metrics')).toEqual([
      expect.objectContaining({
        name: 'checkout_ms',
        value: 512,
        unit: 'ms',
        attributes: { screen: 'Cart', ok: true, n: 3, nested: '[object Object]' },
        user_id: sdk.deviceId(),
      }),
    ]);
    expect(sink.records('events')).toEqual([expect.objectContaining({ event_name: 'opened' })]);
    expect(sink.records('events')[0]).not.toHaveProperty('properties');
    expect(sink.records('feedback')).toEqual([expect.objectContaining({ message: 'great' })]);
    expect(sink.records('feedback')[0]).not.toHaveProperty('rating');
  });

  it('keeps what is called before it has read its storage, in order', async () => {
    const sdk = start();
    sdk.track('first');
    sdk.track('second');
    sdk.appReady();
    await sdk.flush();
    expect(sink.records('events').map((e) => e.event_name)).toEqual(['first', 'second']);
    const [startup] = sink.records('metrics');
    expect(startup).toMatchObject({ name: 'app_start_ms', unit: 'ms', session_id: sdk.sessionId() });
  });
});

describe('XMLHttpRequest, and fetch built on it', () => {
  it('traces an XMLHttpRequest: a client span, traceparent pointing at it, status error on a 5xx', async () => {
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = LoopbackXhr;
    const sdk = start();
    await sdk.ready;
    for (const path of ['/v1/items/42', '/v1/broken']) {
      const xhr = new LoopbackXhr();
      const done = new Promise<void>((resolve) => xhr.addEventListener('loadend', resolve));
      xhr.open('GET', `${backendUrl}${path}`);
      xhr.send();
      await done;
    }
    await sdk.flush();
    const spans = sink.records('spans');
    const host = new URL(backendUrl).host;
    expect(spans).toEqual([
      expect.objectContaining({ kind: 'client', operation: `GET ${host}/v1/items/:id`, status: 'ok' }),
      expect.objectContaining({ kind: 'client', operation: `GET ${host}/v1/broken`, status: 'error' }),
    ]);
    expect(seenTraceparents.map((h) => parseTraceparent(h)?.spanId)).toEqual(spans.map((s) => s.span_id));
  });

  it('one span per fetch although React Native opens an XMLHttpRequest inside it; the SDK own requests untraced', async () => {
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = LoopbackXhr;
    globalThis.fetch = fetchOverXhr;
    const sdk = start();
    await sdk.ready;
    const res = await fetch(`${backendUrl}/v1/cart`);
    expect(res.status).toBe(200);
    await sdk.flush();
    const spans = sink.records('spans');
    expect(spans).toEqual([
      expect.objectContaining({ kind: 'client', operation: `GET ${new URL(backendUrl).host}/v1/cart` }),
    ]);
    expect(parseTraceparent(seenTraceparents[0])?.spanId).toBe(spans[0]!.span_id);
    expect(sink.badSignatures).toBe(0);
  });
});
