import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: Seen, res: ServerResponse) => void;

/**
 * A real HTTP server on 127.0.0.1 standing in for a backend in these tests; its behaviour is
 * swapped per test through `handle`, and every request it receives is recorded in `seen`.
 */
export interface StubBackend {
  url: string;
  seen: Seen[];
  handle: Handler;
  close(): Promise<void>;
}

export async function startStubBackend(initial: Handler = json(200, { status: 'ok' })): Promise<StubBackend> {
  const stub: StubBackend = { url: '', seen: [], handle: initial, close: async () => {} };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      stub.seen.push(seen);
      stub.handle(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = `http://127.0.0.1:${port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

/** A JSON answer with its Content-Length, as express sends one. */
export function json(status: number, body: unknown): Handler {
  return (_req, res) => {
    const text = JSON.stringify(body);
    res
      .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      .end(text);
  };
}

export function text(status: number, body: string): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  };
}

/**
 * How long a condition may take to hold, at most: far above what a loaded machine needs (its timers
 * fire late), below jest's test timeout.
 */
const CONDITION_CEILING_MS = 120_000;

/**
 * Polls until the condition holds (state changes driven by the breaker's own timers), up to
 * CONDITION_CEILING_MS: a ceiling in time, not a count of polls a busy machine runs through slowly.
 */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > CONDITION_CEILING_MS)
      throw new Error(`never happened in ${CONDITION_CEILING_MS / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
