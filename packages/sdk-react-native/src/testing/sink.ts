import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasIngestSignature } from '@svc/sdk-core/testing';

// A loopback stand-in for the core's ingest endpoint, for tests of the SDK's delivery logic: it
// checks every signature as the core does, keeps the batches it accepts, and answers the next
// requests with the statuses a test scripts (a 503 storm, a 400).

export interface Sink {
  url: string;
  /** A DSN of the sink's key. */
  dsn: string;
  batches: Record<string, Record<string, unknown>[]>[];
  /** Headers of every request, accepted or not. */
  requests: IncomingMessage['headers'][];
  badSignatures: number;
  /** Answer the next requests with these statuses, in order, then 200 again. */
  script(...statuses: number[]): void;
  records(type: string): Record<string, unknown>[];
  close(): Promise<void>;
}

export const SINK_KEY = { id: 'key_sink', secret: 'sink-ingest-secret-0123456789' };

export async function startSink(): Promise<Sink> {
  const scripted: number[] = [];
  const sink = {
    batches: [] as Sink['batches'],
    requests: [] as Sink['requests'],
    badSignatures: 0,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sink.requests.push(req.headers);
      const body = Buffer.concat(chunks);
      if (
        req.headers['x-svc-key'] !== SINK_KEY.id ||
        !hasIngestSignature(req.headers, SINK_KEY.secret, body)
      ) {
        sink.badSignatures++;
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{}');
      }
      const status = scripted.shift() ?? 200;
      if (status === 200) sink.batches.push(JSON.parse(body.toString('utf8')));
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(sink, {
    url: `http://${host}`,
    dsn: `http://${SINK_KEY.id}:${SINK_KEY.secret}@${host}/prj_sink`,
    script: (...statuses: number[]) => void scripted.push(...statuses),
    records: (type: string) => sink.batches.flatMap((b) => b[type] ?? []),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
