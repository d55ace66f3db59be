import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFetch, nodePlatform } from './node/node-platform';
import type { HttpFetch } from './platform';
import { createMobileSdk, type MobileSdk, type SdkError } from './sdk';
import { killable } from './testing/killable';
import { type Sink, startSink } from './testing/sink';

// Records still in the exporter when a fatal crash ends the app (queued, or on the wire with no
// answer yet) are written to storage after the crash report and sent at the next start, each batch
// under the Idempotency-Key its first try carried.

let sink: Sink;
let dir: string;
let sdk: MobileSdk | undefined;
beforeAll(async () => {
  sink = await startSink();
});
afterAll(() => sink.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sdk-fatal-'));
  sink.batches.length = 0;
  sink.requests.length = 0;
});
afterEach(async () => {
  await sdk?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const options = {
  appVersion: '6.1.0',
  appStart: 'manual' as const,
  sampleIntervalMs: 0,
  // One full batch goes at once; the rest waits for a flush that never comes before the crash.
  exporter: { batchSize: 3, flushIntervalMs: 3_600_000 },
};

it('what the exporter had not delivered when a fatal crash ended the app goes at the next start, under the keys its tries carried', async () => {
  // Launch 1: the network takes requests and never answers (a dead radio): the first batch is
  // on the wire when the app crashes, the rest queued; the crash report cannot go either.
  const onTheWire: { body: string; key: string }[] = [];
  let batchSent!: () => void;
  const firstBatchOnTheWire = new Promise<void>((resolve) => (batchSent = resolve));
  const stalled: HttpFetch = (_url, init) => {
    onTheWire.push({ body: String(init.body), key: init.headers['idempotency-key'] ?? '' });
    if (String(init.body).includes('cart_opened')) batchSent();
    return new Promise((_resolve, reject) =>
      init.signal.addEventListener('abort', () => reject(new Error('cut')), { once: true }),
    );
  };
  const device = nodePlatform({ dir, fetch: stalled });
  const first = killable(device);
  const errors: SdkError[] = [];
  const dying = createMobileSdk(
    { ...options, dsn: sink.dsn, onError: (e) => void errors.push(e) },
    first.platform,
  );
  await dying.ready;
  dying.track('cart_opened', { items: 2 });
  dying.metric('cart_value', 42, { unit: 'EUR' });
  dying.tracer.startSpan('GET /cart').end();
  // The first batch is on the wire now; these wait in the queue.
  dying.feedback('the pay button does nothing', { rating: 2 });
  dying.track('pay_tapped');
  dying.tracer.log('WARN', 'payment slow');
  await firstBatchOnTheWire;

  // The crash is handled as React Native's handler lets it be (at most FATAL_WAIT_MS), then the
  // process dies.
  await device.app.uncaught(new TypeError('total of undefined'), true);
  first.kill();
  expect(errors).toEqual([]);
  expect(sink.batches).toEqual([]);
  const wireKey = onTheWire.find((r) => r.body.includes('cart_opened'))!.key;
  expect(wireKey).toMatch(/^[\x21-\x7e]{1,255}$/);

  // Launch 2, online: the crash and every record of launch 1 arrive, each once.
  sdk = createMobileSdk({ ...options, dsn: sink.dsn }, nodePlatform({ dir, fetch: nodeFetch() }));
  await sdk.flush();
  expect(sink.records('crashes').map((c) => c.message)).toEqual(['total of undefined']);
  expect(
    sink
      .records('events')
      .map((e) => e.event_name)
      .sort(),
  ).toEqual(['cart_opened', 'pay_tapped']);
  expect(sink.records('metrics').map((m) => [m.name, m.value])).toEqual([['cart_value', 42]]);
  expect(sink.records('spans').map((s) => s.operation)).toEqual(['GET /cart']);
  expect(sink.records('feedback').map((f) => f.message)).toEqual(['the pay button does nothing']);
  expect(sink.records('logs').map((l) => l.message)).toEqual(['payment slow']);
  // The batch that was on the wire goes again as it was, under its key: had the first try been
  // stored, the core answers this one as a repeat.
  const resent = sink.requests.filter((h) => h['idempotency-key'] === wireKey);
  expect(resent).toHaveLength(1);
  expect(sink.batches.filter((b) => (b.events ?? []).some((e) => e.event_name === 'cart_opened'))).toEqual([
    JSON.parse(onTheWire.find((r) => r.key === wireKey)!.body),
  ]);
  expect(sdk.stats()).toMatchObject({ reportsPending: 0, reportsDropped: 0 });
});
