import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTraceparent, type Tracer } from '@svc/sdk-core';
import { createTracer, expressTracing } from '@svc/sdk-node';
import {
  createMobileSdk,
  type MobilePlatform,
  type MobileSdk,
  nodeFetch,
  nodePlatform,
  type SimulatedApp,
  simulatedApp,
} from '@svc/sdk-react-native/node';
import { killable } from '@svc/sdk-react-native/testing';
import { STACK_SETUP_TIMEOUT_MS } from '@svc/standalone/testing';
import express from 'express';
import { EXPORT_TIMEOUT_MS } from '../testing/export-timeout';
import { startTestStack, type TestStack } from '../testing/stack';

// A React Native app simulated in Node: the mobile SDK's own logic with the Node platform (files
// for the app's storage, node:crypto, zlib), launched again and again on the same storage, against
// the whole stack as `pnpm start` runs it. It calls a backend traced by the Node SDK, crashes while
// the core is unreachable, goes to the background, is recalled, and is killed mid-upload; what it
// reported is read back with the stack's own tools.

const VERSION = '3.1.0';
const DEVICE = { platform: 'android', os: 'Android 14 (API 34)' };

let t: TestStack;
let dir: string;
let backend: Server;
let backendUrl: string;
let backendTracer: Tracer;
/** traceparent headers the backend received, by path. */
const received = new Map<string, string>();
/** While true, the app's requests to the core fail as on a phone without a connection. */
let coreDown = false;
const plainFetch = globalThis.fetch;

/** Every line the app's device log must hold, in order (what the app logged, and the SDK's own). */
const expectedLines: { level: string; message: string; tag?: string; fields?: Record<string, unknown> }[] =
  [];
/**
 * When each of expectedLines was written: the clock just before and just after. The SDK keeps one
 * file per UTC day, so the files to expect follow from these (two when the run crossed midnight).
 */
const writtenAt: { from: number; to: number }[] = [];

/** Expects `line` in the device log, written since `from` (and before now). */
function expectLine(line: (typeof expectedLines)[number], from: number): void {
  writtenAt.push({ from, to: Date.now() });
  expectedLines.push(line);
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const launched: { sdk: MobileSdk; app: SimulatedApp; kill(): void }[] = [];

interface Launch {
  sdk: MobileSdk;
  app: SimulatedApp;
  /** The process dies: nothing more of it runs; its fetch and XMLHttpRequest patches go with it. */
  kill(): void;
}

/** The app's n-th launch: a fresh SDK instance on the same storage. */
function launch(numbers: { startMs: number; memoryMb: number }, fetch = nodeFetch(plainFetch)): Launch {
  const app = simulatedApp();
  const base: MobilePlatform = {
    ...nodePlatform({ dir, device: DEVICE, app, fetch }),
    sinceAppStartMs: () => numbers.startMs,
    memoryMb: () => numbers.memoryMb,
  };
  const coreOrigin = new URL(t.stack.ready.urls.core).origin;
  const k = killable({
    ...base,
    fetch: (url, init) =>
      coreDown && url.startsWith(coreOrigin)
        ? Promise.reject(new TypeError('fetch failed'))
        : base.fetch(url, init),
  });
  const sdk = createMobileSdk(
    {
      dsn: t.dsn,
      appVersion: VERSION,
      service: 'shop-app',
      recallEndpoint: t.stack.ready.urls.recall,
      // One memory sample at launch (and one per return to the foreground): countable.
      sampleIntervalMs: 3_600_000,
      exporter: { flushIntervalMs: 100, timeoutMs: EXPORT_TIMEOUT_MS },
    },
    k.platform,
  );
  const running = {
    sdk,
    app,
    kill() {
      k.kill();
      void sdk.shutdown();
    },
  };
  launched.push(running);
  return running;
}

function log(
  sdk: MobileSdk,
  level: 'INFO' | 'WARN' | 'ERROR',
  message: string,
  fields?: Record<string, unknown>,
  tag?: string,
) {
  const from = Date.now();
  sdk.log(level, message, fields, tag);
  expectLine({ level, message, ...(tag ? { tag } : {}), ...(fields ? { fields } : {}) }, from);
}

function navigate(sdk: MobileSdk, screen: string) {
  const from = Date.now();
  sdk.navigation(screen);
  expectLine({ level: 'INFO', message: `screen ${screen}`, tag: 'navigation' }, from);
}

beforeAll(async () => {
  t = await startTestStack();
  dir = mkdtempSync(join(tmpdir(), 'svc-rn-app-'));
  backendTracer = createTracer({
    service: 'cart-api',
    exporter: { dsn: t.dsn, flushIntervalMs: 50, timeoutMs: EXPORT_TIMEOUT_MS },
  });
  const api = express();
  api.use(expressTracing(backendTracer));
  api.get('/api/cart/:id', (req, res) => {
    received.set(req.path, String(req.headers.traceparent));
    res.json({ id: req.params.id, items: 2 });
  });
  backend = await new Promise<Server>((resolve) => {
    const s = api.listen(0, '127.0.0.1', () => resolve(s));
  });
  backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const running of launched) running.kill();
  backend?.closeAllConnections();
  await new Promise((r) => backend?.close(r));
  await backendTracer?.shutdown();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface TraceAnswer {
  found: boolean;
  spans: {
    span_id: string;
    parent_span_id: string | null;
    service: string;
    kind: string;
    operation: string;
    children: TraceAnswer['spans'];
  }[];
}
interface CrashAnswer {
  found: boolean;
  crash: {
    error_type: string;
    message: string;
    platform: string;
    app_version: string;
    device_os: string;
    user_id: string | null;
    session_id: string | null;
    frames: { function: string; in_app: boolean }[];
    breadcrumbs: { category: string; message: string; level: string | null }[];
  };
}
interface MetricStats {
  metrics: { name: string; unit: string | null; count: number; min: number; max: number; avg: number }[];
}
interface Release {
  releases: { version: string; found: boolean; sessions: number; crash_free_session_rate: number | null }[];
}
interface FileItem {
  file_id: string;
  file_name: string;
  device_id: string;
  user_id: string | null;
}
interface Entries {
  status: string;
  has_more: boolean;
  items: {
    line: number;
    ts: string;
    level: string;
    tag: string | null;
    message: string;
    fields: Record<string, unknown>;
  }[];
}

const appFiles = async () =>
  (await t.tool<{ items: FileItem[] }>('log.list_files', { limit: 1000 })).items.filter((f) =>
    f.file_name.startsWith('app-'),
  );

// State passed from one launch to the next, as the app's storage passes it.
let first: Launch;
let firstSession: string;
let deviceId: string;
let checkoutError: Error;
/** The names of the device's day files, as the first recall uploaded them. */
let logFileNames: string[] = [];

describe('a React Native app (simulated in Node) against the stack', () => {
  it('launch 1: a request to a traced backend is one trace, the client span the parent of the server span', async () => {
    first = launch({ startMs: 1_100, memoryMb: 182 });
    await first.sdk.ready;
    deviceId = first.sdk.deviceId()!;
    firstSession = first.sdk.sessionId()!;
    first.sdk.setUser('u_shopper_7');
    navigate(first.sdk, 'Home');
    log(first.sdk, 'INFO', 'cart opened', { items: 2, currency: 'EUR' }, 'Cart');
    const res = await fetch(`${backendUrl}/api/cart/42`);
    expect(await res.json()).toEqual({ id: '42', items: 2 });
    await first.sdk.flush();
    await backendTracer.exporter.flush();

    const sent = parseTraceparent(received.get('/api/cart/42'))!;
    const trace = await t.tool<TraceAnswer>('trace.get', { trace_id: sent.traceId });
    expect(trace.found).toBe(true);
    const [client] = trace.spans;
    expect(client).toMatchObject({
      span_id: sent.spanId,
      parent_span_id: null,
      service: 'shop-app',
      kind: 'client',
      operation: `GET ${new URL(backendUrl).host}/api/cart/:id`,
    });
    expect(client!.children).toEqual([
      expect.objectContaining({
        parent_span_id: sent.spanId,
        service: 'cart-api',
        kind: 'server',
        operation: 'GET /api/cart/:id',
      }),
    ]);
  });

  it('launch 1: events (track.recent) and feedback (feedback.search) arrive as the app sent them', async () => {
    first.sdk.track('add_to_cart', { sku: 'sku-1', qty: 2 });
    first.sdk.metric('checkout_ms', 840, { unit: 'ms', attributes: { screen: 'Cart' } });
    first.sdk.feedback('Checkout was quick', { rating: 9 });
    await first.sdk.flush();
    const events = await t.tool<{ items: unknown[] }>('track.recent', { name: 'add_to_cart' });
    expect(events.items).toEqual([
      expect.objectContaining({
        event_name: 'add_to_cart',
        properties: { sku: 'sku-1', qty: 2 },
        platform: 'android',
        app_version: VERSION,
        user_id: 'u_shopper_7',
        session_id: firstSession,
      }),
    ]);
    const feedback = await t.tool<{ items: unknown[]; total: number }>('feedback.search', {
      search: 'quick',
    });
    expect(feedback).toMatchObject({
      total: 1,
      items: [
        {
          message: 'Checkout was quick',
          rating: 9,
          user_id: 'u_shopper_7',
          session_id: firstSession,
          platform: 'android',
          app_version: VERSION,
        },
      ],
    });
  });

  it('launch 1: a fatal crash while the core is unreachable is written to storage, not lost', async () => {
    coreDown = true;
    function checkoutButtonPressed(): never {
      throw new TypeError("Cannot read property 'total' of undefined");
    }
    try {
      checkoutButtonPressed();
    } catch (err) {
      checkoutError = err as Error;
    }
    const crashedAt = Date.now();
    await first.app.uncaught(checkoutError, true);
    expectLine(
      {
        level: 'FATAL',
        message: `TypeError: ${checkoutError.message}`,
        tag: 'crash',
        fields: { event_id: expect.stringMatching(/^[0-9a-f]{32}$/) },
      },
      crashedAt,
    );
    // The app dies with its report unsent.
    first.kill();
    coreDown = false;
    expect((await t.tool<{ items: unknown[] }>('crash.recent', {})).items).toEqual([]);
  });

  it('launch 2: the crash goes out; crash.get has its stack and breadcrumbs; its session counts as crashed', async () => {
    const second = launch({ startMs: 1_300, memoryMb: 176 });
    await second.sdk.ready;
    expect(second.sdk.deviceId()).toBe(deviceId);
    log(second.sdk, 'WARN', 'payment retried', { attempt: 2 }, 'Checkout');
    await second.sdk.flush();

    const { items } = await t.tool<{ items: { event_id: string }[] }>('crash.recent', {});
    expect(items).toHaveLength(1);
    const { found, crash } = await t.tool<CrashAnswer>('crash.get', { event_id: items[0]!.event_id });
    expect(found).toBe(true);
    expect(crash).toMatchObject({
      error_type: 'TypeError',
      message: checkoutError.message,
      platform: 'android',
      app_version: VERSION,
      device_os: DEVICE.os,
      user_id: 'u_shopper_7',
      session_id: firstSession,
    });
    expect(crash.frames[0]).toMatchObject({ function: 'checkoutButtonPressed', in_app: true });
    expect(crash.breadcrumbs.map(({ category, message, level }) => ({ category, message, level }))).toEqual([
      { category: 'navigation', message: 'Home', level: null },
      { category: 'log.Cart', message: 'cart opened', level: 'info' },
      {
        category: 'http',
        message: expect.stringMatching(new RegExp(`^GET ${backendUrl}/api/cart/42 200 \\(\\d+ ms\\)$`)),
        level: 'info',
      },
      { category: 'track', message: 'add_to_cart', level: null },
    ]);

    // The user leaves: the second session ends well. One of two sessions crashed.
    second.app.setVisibility('background');
    await second.sdk.flush();
    const health = await t.tool<Release>('release.health', { version: VERSION });
    expect(health.releases[0]).toMatchObject({
      version: VERSION,
      found: true,
      sessions: 2,
      crash_free_session_rate: 0.5,
    });

    // app_start_ms and memory_mb of both launches, and the app's own metric.
    const { metrics } = await t.tool<MetricStats>('apm.stats', { days: 1 });
    const byName = Object.fromEntries(metrics.map((m) => [m.name, m]));
    expect(byName.app_start_ms).toMatchObject({ unit: 'ms', count: 2, min: 1_100, max: 1_300, avg: 1_200 });
    expect(byName.memory_mb).toMatchObject({ unit: 'MB', count: 2, min: 176, max: 182 });
    expect(byName.checkout_ms).toMatchObject({ unit: 'ms', count: 1, min: 840, max: 840 });
    second.kill();
  });

  it('launch 3 and 4: a recalled file killed mid-upload is uploaded at the next launch, its entries exactly the log', async () => {
    await t.recall(deviceId);
    // Launch 3 polls at start and uploads; the process dies with half the file sent.
    let started!: () => void;
    const uploadStarted = new Promise<void>((resolve) => (started = resolve));
    const stalling = nodeFetch((async (url: string | URL | Request, init?: RequestInit) => {
      if (!String(url).includes('/device/v1/files')) return plainFetch(url, init);
      const bytes = new Uint8Array(init!.body as Uint8Array);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.subarray(0, bytes.length >> 1));
          started();
        },
        // The rest never comes: the connection is cut when the app dies.
        pull: () => new Promise(() => undefined),
      });
      return plainFetch(url, { ...init, body, duplex: 'half' } as RequestInit);
    }) as typeof fetch);
    const third = launch({ startMs: 1_000, memoryMb: 170 }, stalling);
    await uploadStarted;
    third.kill();
    expect(await appFiles()).toEqual([]);

    const fourth = launch({ startMs: 1_000, memoryMb: 170 });
    await fourth.sdk.flush();
    // A file per UTC day the log has lines of: one, or two when the run crossed midnight.
    const files = (await appFiles()).sort((a, b) => a.file_name.localeCompare(b.file_name));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.device_id !== deviceId)).toEqual([]);
    const entries: (Entries['items'][number] & { file: string })[] = [];
    for (const { file_id, file_name } of files) {
      const answer = await t.tool<Entries>('log.file_entries', { file_id, limit: 1000 });
      expect(answer).toMatchObject({ status: 'ok', has_more: false });
      entries.push(...answer.items.map((item) => ({ ...item, file: file_name })));
    }
    expect(
      entries.map(({ level, tag, message, fields }) => ({
        level,
        message,
        ...(tag ? { tag } : {}),
        ...(Object.keys(fields).length > 0 ? { fields } : {}),
      })),
    ).toEqual(expectedLines);
    // Each line stamped while it was written, in the file of its UTC day; no file without a line.
    const misplaced = entries.filter((e, i) => {
      const ms = Date.parse(e.ts);
      const { from, to } = writtenAt[i]!;
      return !(ms >= from && ms <= to && e.file === `app-${utcDay(ms)}.ndjson`);
    });
    expect(misplaced).toEqual([]);
    expect(files.map((f) => f.file_name)).toEqual([...new Set(entries.map((e) => e.file))]);
    logFileNames = files.map((f) => f.file_name);
    fourth.kill();
  });

  it('launch 5 and 6: an upload that arrived although its answer was lost is not uploaded twice', async () => {
    const before = (await appFiles()).length;
    await t.recall(deviceId);
    let landed!: () => void;
    const uploadLanded = new Promise<void>((resolve) => (landed = resolve));
    const answerLost = nodeFetch((async (url: string | URL | Request, init?: RequestInit) => {
      const answer = await plainFetch(url, init);
      if (!String(url).includes('/device/v1/files')) return answer;
      await answer.text();
      landed();
      return new Promise(() => undefined);
    }) as typeof fetch);
    const fifth = launch({ startMs: 1_000, memoryMb: 170 }, answerLost);
    await uploadLanded;
    fifth.kill();
    // The first day's file arrived (the app died waiting for its answer).
    expect((await appFiles()).length).toBe(before + 1);

    const sixth = launch({ startMs: 1_000, memoryMb: 170 });
    await sixth.sdk.flush();
    expect(sixth.sdk.stats()).toMatchObject({ uploadsPending: 0, uploadsDropped: 0 });
    // Every day's file once per recall: the one that arrived not again, the next days' (when the
    // run crossed midnight) sent by the sixth launch.
    const names = (await appFiles()).map((f) => f.file_name).sort();
    expect(names).toEqual([...logFileNames, ...logFileNames].sort());
    sixth.kill();
  });
});
