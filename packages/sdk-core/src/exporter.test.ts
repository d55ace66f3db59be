import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExporter } from './exporter';
import type { SpanRecord } from './records';

// How the exporter cuts batches, against a loopback sink that counts what each post carried.

let server: Server;
let endpoint: string;
let posts: number[];

let bodies: Record<string, unknown[]>[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown[]>;
      bodies.push(body);
      posts.push((body.spans ?? []).length);
      // A little latency, as a real core has: records keep coming while a post is in flight.
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  posts = [];
  bodies = [];
});

const span = (i: number): SpanRecord => ({
  trace_id: 'a'.repeat(32),
  span_id: i.toString(16).padStart(16, '0'),
  kind: 'server',
  status: 'ok',
  operation: 'GET /',
  start_time: Date.now(),
  duration_ms: 1,
});

const transport = {
  headers: () => ({}),
  url: () => `${endpoint}/ingest/v1/batch`,
};

it('posts full batches while records keep coming, and the rest only when flushed', async () => {
  const exporter = createExporter(
    { dsn: { endpoint, keyId: 'k', secret: 's', projectId: 'p' }, batchSize: 100, flushIntervalMs: 60_000 },
    transport,
  );
  // A steady trickle, as from a server handling requests: a record, then a moment.
  for (let i = 0; i < 1050; i++) {
    exporter.addSpan(span(i));
    if (i % 10 === 0) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 50));
  expect(posts.every((n) => n === 100)).toBe(true);
  expect(exporter.stats().queued).toBe(50);
  await exporter.flush();
  expect(posts.reduce((a, b) => a + b, 0)).toBe(1050);
  expect(posts.filter((n) => n < 100)).toEqual([50]);
  await exporter.shutdown();
});

it('sends a partial batch once it has waited the flush interval', async () => {
  const exporter = createExporter(
    { dsn: { endpoint, keyId: 'k', secret: 's', projectId: 'p' }, batchSize: 100, flushIntervalMs: 30 },
    transport,
  );
  for (let i = 0; i < 7; i++) exporter.addSpan(span(i));
  expect(posts).toEqual([]);
  // Waited for (up to 2 min: a loaded machine fires the timer late), not given a fixed 150 ms.
  const started = Date.now();
  while (posts.length === 0 && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 10));
  expect(posts).toEqual([7]);
  await exporter.shutdown();
});

it('batches records of any type of the ingest format in their own arrays, one queue bound for all', async () => {
  const errors: string[] = [];
  const exporter = createExporter(
    {
      dsn: { endpoint, keyId: 'k', secret: 's', projectId: 'p' },
      batchSize: 100,
      flushIntervalMs: 60_000,
      maxQueue: 4,
      onError: (e) => errors.push(e.reason),
    },
    transport,
  );
  const metric = { timestamp: 1, name: 'app_start_ms', value: 812 };
  const event = { timestamp: 2, event_name: 'checkout', user_id: 'u1' };
  const session = { session_id: 's1', user_id: 'u1', started_at: 3, status: 'ok' };
  const first = span(1);
  exporter.addRecord('metrics', metric);
  exporter.addSpan(first);
  exporter.addRecord('events', event);
  exporter.addRecord('sessions', session);
  // The queue holds four records whatever their type: the fifth is dropped and counted.
  exporter.addRecord('feedback', { timestamp: 4, user_id: 'u1', message: 'lost' });
  await exporter.flush();
  expect(bodies).toEqual([{ metrics: [metric], spans: [first], events: [event], sessions: [session] }]);
  expect(errors).toEqual(['queue_full']);
  expect(exporter.stats()).toEqual({ sent: 4, dropped: 1, queued: 0 });
  await exporter.shutdown();
});

describe('requests in flight', () => {
  // A sink the test answers by hand: requests wait in `held` until released with a status; with
  // `hold` off they are answered 200 at once. It records the most requests it ever held at once.
  async function manualSink() {
    const held: import('node:http').ServerResponse[] = [];
    const state = { hold: true, most: 0, ok: 0 };
    const answer = (res: import('node:http').ServerResponse, status: number) => {
      if (status === 200) state.ok++;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    };
    const sink = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (!state.hold) return answer(res, 200);
        held.push(res);
        state.most = Math.max(state.most, held.length);
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    return {
      state,
      url,
      held: () => held.length,
      release(status: number) {
        for (const res of held.splice(0)) answer(res, status);
      },
      close: () => {
        const closed = new Promise((resolve) => sink.close(resolve));
        sink.closeAllConnections();
        return closed;
      },
    };
  }
  /** Polls up to a ceiling in time (2 min, far above a loaded machine's need), not a count of polls. */
  async function until(condition: () => boolean) {
    const started = Date.now();
    while (!condition() && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 5));
    expect(condition()).toBe(true);
  }
  const settle = () => new Promise((r) => setTimeout(r, 50));
  const exporterTo = (url: string, more: { concurrency?: number; retryBaseMs?: number } = {}) =>
    createExporter(
      {
        dsn: { endpoint: url, keyId: 'k', secret: 's', projectId: 'p' },
        batchSize: 10,
        flushIntervalMs: 60_000,
        ...more,
      },
      { headers: () => ({}), url: () => `${url}/ingest/v1/batch` },
    );

  it('keeps one request in flight under light traffic: a batch at a time', async () => {
    const sink = await manualSink();
    sink.state.hold = false;
    const exporter = exporterTo(sink.url, { concurrency: 8 });
    for (let b = 0; b < 5; b++) {
      for (let i = 0; i < 10; i++) exporter.addSpan(span(i));
      await until(() => exporter.stats().sent === (b + 1) * 10);
    }
    await exporter.shutdown();
    expect(sink.state.ok).toBe(5);
    await sink.close();
  });

  it('opens one request per full batch waiting, up to the limit, for a backlog', async () => {
    const sink = await manualSink();
    const exporter = exporterTo(sink.url, { concurrency: 8 });
    for (let i = 0; i < 300; i++) exporter.addSpan(span(i));
    const flushed = exporter.flush();
    await until(() => sink.held() === 8);
    await settle();
    expect(sink.held()).toBe(8);
    sink.state.hold = false;
    sink.release(200);
    await flushed;
    expect(sink.state.most).toBe(8);
    expect(exporter.stats()).toMatchObject({ sent: 300, dropped: 0 });
    await exporter.shutdown();
    await sink.close();
  });

  it('after failures sends one request at a time, then grows back, and delivers everything', async () => {
    const sink = await manualSink();
    const exporter = exporterTo(sink.url, { concurrency: 16, retryBaseMs: 1 });
    for (let i = 0; i < 160; i++) exporter.addSpan(span(i));
    const flushed = exporter.flush();
    await until(() => sink.held() === 16);
    sink.release(503);
    // Sixteen failures halved the limit to one: the retries come one at a time.
    await until(() => sink.held() === 1);
    await settle();
    expect(sink.held()).toBe(1);
    sink.release(200);
    // One success allows two.
    await until(() => sink.held() === 2);
    await settle();
    expect(sink.held()).toBe(2);
    sink.state.hold = false;
    sink.release(200);
    await flushed;
    expect(exporter.stats()).toMatchObject({ sent: 160, dropped: 0 });
    await exporter.shutdown();
    await sink.close();
  });
});
