import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createExporter } from './exporter';
import { nodeSend } from './send';

// The Node exporter's sender (node:http, kept-alive connections) against a loopback server.

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let url: string;
let handle: Handler;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (body: string, timeoutMs = 2000) =>
  nodeSend(`${url}/ingest/v1/batch`, {
    headers: { 'content-type': 'application/json', 'x-test': 'yes' },
    body,
    keepalive: false,
    timeoutMs,
  });

describe('nodeSend', () => {
  it('posts the body and headers, answers with the status and headers, on one kept-alive connection', async () => {
    const seen: { body: string; header: unknown; length: unknown }[] = [];
    handle = (req, body, res) => {
      seen.push({ body, header: req.headers['x-test'], length: req.headers['content-length'] });
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' }).end('{"error":{}}');
    };
    sockets.clear();
    const first = await post('{"spans":["ünïcödé"]}');
    const second = await post('{}');
    expect([first.status, first.header('Retry-After'), first.header('x-missing')]).toEqual([429, '7', null]);
    expect(second.status).toBe(429);
    expect(seen).toEqual([
      {
        body: '{"spans":["ünïcödé"]}',
        header: 'yes',
        length: String(Buffer.byteLength('{"spans":["ünïcödé"]}')),
      },
      { body: '{}', header: 'yes', length: '2' },
    ]);
    expect(sockets.size).toBe(1);
  });

  it('gives up on an answer that does not come in time', async () => {
    handle = () => undefined;
    const started = Date.now();
    await expect(post('{}', 150)).rejects.toThrow(/timed out after 150 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      nodeSend(`http://127.0.0.1:${port}/ingest/v1/batch`, {
        headers: {},
        body: '{}',
        keepalive: false,
        timeoutMs: 1000,
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('the Node exporter', () => {
  it('corrects its clock from the Date of a 401 and delivers', async () => {
    // The server's clock is an hour ahead: a timestamp further than five minutes from it is refused.
    const serverNow = Date.now() + 3_600_000;
    const timestamps: number[] = [];
    handle = (req, _body, res) => {
      const ts = Number(req.headers['x-svc-timestamp']) * 1000;
      timestamps.push(ts);
      if (Math.abs(ts - serverNow) > 300_000)
        res.writeHead(401, { date: new Date(serverNow).toUTCString() }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":{"spans":1}}');
    };
    const exporter = createExporter({ dsn: `${url.replace('//', '//k:s@')}/p`, flushIntervalMs: 60_000 });
    exporter.addSpan({
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      kind: 'internal',
      status: 'ok',
      operation: 'clock.test',
      start_time: Date.now(),
      duration_ms: 1,
    });
    await exporter.shutdown();
    expect(exporter.stats()).toEqual({ sent: 1, dropped: 0, queued: 0 });
    expect(timestamps).toHaveLength(2);
    expect(Math.abs(timestamps[1]! - serverNow)).toBeLessThan(300_000);
  });
});
