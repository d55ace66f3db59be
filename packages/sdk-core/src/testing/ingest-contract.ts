import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasIngestSignature } from './signed-ingest';

// A loopback stand-in for the core's POST /ingest/v1/batch that keeps the documented rules of
// retries and replays (docs/ingest.md, "Retries and replays"), for tests of an exporter's
// delivery without a core:
//   - same key id, timestamp and signature as an accepted request: 409, nothing written;
//   - same Idempotency-Key and body as an accepted request: 200 with its counts and
//     `"replayed": true`, nothing written; the same key with another body: 409;
//   - either, while the first is still being written: 409.
// A test can lose the answers of the next accepted requests (stored, then the connection is cut)
// and hold the next one "being written" until it releases it.

const RECORD_TYPES = ['logs', 'crashes', 'spans', 'metrics', 'events', 'feedback', 'sessions', 'experiments'];

export interface ContractRequest {
  idempotencyKey: string | undefined;
  body: string;
  status: number | 'answer lost';
  replayed: boolean;
}

export interface IngestContract {
  url: string;
  /** Every request, in the order they arrived, with what became of it. */
  requests: ContractRequest[];
  /** The records stored, by type, each once per time it was written. */
  stored(type: string): Record<string, unknown>[];
  /** The next `count` requests that are stored get no answer: the connection is cut. */
  loseAnswers(count: number): void;
  /** The next fresh request stays "being written" until `release()`; resolves when it arrives. */
  holdNext(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

interface Accepted {
  bodySha256: string;
  counts: Record<string, number>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** `secret`: signatures are checked as the core does (`v1=` HMAC over timestamp, dot, body). */
export async function startIngestContract(options: { secret?: string } = {}): Promise<IngestContract> {
  const requests: ContractRequest[] = [];
  const batches: Record<string, Record<string, unknown>[]>[] = [];
  const accepted = new Map<string, Accepted>();
  const inProgress = new Set<string>();
  let answersToLose = 0;
  let hold: { arrived: () => void; released: Promise<void> } | undefined;

  const answer = (res: ServerResponse, entry: ContractRequest, status: number, json: unknown) => {
    entry.status = status;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  };

  async function handle(req: IncomingMessage, body: string, res: ServerResponse) {
    const raw = req.headers['idempotency-key'] as string | undefined;
    const key = raw === undefined ? undefined : /^"(.*)"$/.test(raw) ? raw.slice(1, -1) : raw;
    const entry: ContractRequest = { idempotencyKey: key, body, status: 0, replayed: false };
    requests.push(entry);
    const ts = String(req.headers['x-svc-timestamp'] ?? '');
    const signature = String(req.headers['x-svc-signature'] ?? '');
    if (options.secret !== undefined && !hasIngestSignature(req.headers, options.secret, body))
      return answer(res, entry, 401, { error: 'unauthorized' });
    const names = [
      ...(key !== undefined ? [`idem:${key}`] : []),
      ...(signature ? [`sig:${req.headers['x-svc-key']}.${ts}.${signature}`] : []),
    ];
    if (names.some((name) => inProgress.has(name)))
      return answer(res, entry, 409, { error: 'conflict', message: 'still being processed' });
    const earlier = key !== undefined ? accepted.get(`idem:${key}`) : undefined;
    if (earlier) {
      if (earlier.bodySha256 !== sha256(body))
        return answer(res, entry, 409, { error: 'conflict', message: 'key used for another batch' });
      entry.replayed = true;
      return answer(res, entry, 200, { accepted: earlier.counts, replayed: true });
    }
    if (names.some((name) => accepted.has(name)))
      return answer(res, entry, 409, { error: 'conflict', message: 'a replay is refused' });

    for (const name of names) inProgress.add(name);
    const held = hold;
    hold = undefined;
    if (held) {
      held.arrived();
      await held.released;
    }
    const batch = JSON.parse(body) as Record<string, Record<string, unknown>[]>;
    batches.push(batch);
    const counts = Object.fromEntries(RECORD_TYPES.map((type) => [type, batch[type]?.length ?? 0]));
    for (const name of names) {
      inProgress.delete(name);
      accepted.set(name, { bodySha256: sha256(body), counts });
    }
    if (answersToLose > 0) {
      answersToLose--;
      entry.status = 'answer lost';
      res.socket?.destroy();
      return;
    }
    answer(res, entry, 200, { accepted: counts });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stored: (type) => batches.flatMap((batch) => batch[type] ?? []),
    loseAnswers(count) {
      answersToLose += count;
    },
    holdNext() {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      hold = { arrived, released: new Promise<void>((resolve) => (release = resolve)) };
      return { arrived: arrival, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
