import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExporter } from './exporter';
import type { SpanRecord } from './records';

// How the exporter cuts batches, against a loopback sink that counts what each post carried.

let server: Server;
let endpoint: string;
let posts: number[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push((JSON.parse(Buffer.concat(chunks).toString('utf8')).spans ?? []).length);
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
  await new Promise((r) => setTimeout(r, 150));
  expect(posts).toEqual([7]);
  await exporter.shutdown();
});
